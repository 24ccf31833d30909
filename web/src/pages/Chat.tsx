import { PageHeader } from '../components/ui';

export default function Chat() {
  return <PageHeader title="Chat" />;
}
