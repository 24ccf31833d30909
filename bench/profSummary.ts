// Prints the self-time summary of a .cpuprofile: `npx tsx bench/profSummary.ts <file> [top N]`.
import { formatProfile, summariseProfile } from './lib/profile.js';

const [file, n] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: npx tsx bench/profSummary.ts <file.cpuprofile> [top N]\n');
  process.exit(2);
}
process.stdout.write(`${formatProfile(summariseProfile(file, process.cwd(), 'the whole run', undefined, 'one', n ? Number(n) : 25))}\n`);
