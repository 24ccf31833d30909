import { PageHeader } from '../components/ui';

export default function Approvals() {
  return <PageHeader title="Approvals" />;
}
