import { PageHeader } from '../components/ui';

export default function Monitor() {
  return <PageHeader title="Monitor" />;
}
