import { PageHeader } from '../components/ui';

export default function Actors() {
  return <PageHeader title="Actors" />;
}
