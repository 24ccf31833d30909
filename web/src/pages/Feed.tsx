import { PageHeader } from '../components/ui';

export default function Feed() {
  return <PageHeader title="Feed" />;
}
