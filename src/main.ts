// Entry point of a clone (`npm start`, `npm run start:dist`): the hub as `agent-hub start` runs it.
import { failedToStart, runHub } from './server/start.js';

runHub().catch(failedToStart);
