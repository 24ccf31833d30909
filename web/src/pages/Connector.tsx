import { PageHeader } from '../components/ui';

export default function Connector() {
  return <PageHeader title="Connector" />;
}
