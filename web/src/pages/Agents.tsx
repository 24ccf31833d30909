import { PageHeader } from '../components/ui';

export default function Agents() {
  return <PageHeader title="Agents" />;
}
