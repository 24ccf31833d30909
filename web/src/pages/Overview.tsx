import { PageHeader } from '../components/ui';

export default function Overview() {
  return <PageHeader title="Overview" />;
}
