import { describe, expect, it } from 'vitest';
import { installedUwsBinary, runtimeProblem, uwsBinaryName, type Runtime } from '../../src/runtime.js';

const on = (version: string, abi: string): Runtime => ({ version, abi, platform: 'linux', arch: 'x64' });
const shipped = new Set(['uws_linux_x64_127.node', 'uws_linux_x64_137.node', 'uws_linux_x64_141.node']);
const has = (name: string) => shipped.has(name);

describe('runtimeProblem', () => {
  it.each([
    ['24.22.3', '137'],
    ['22.12.0', '127'],
    ['22.23.5', '127'],
  ])('accepts Node %s', (version, abi) => {
    expect(runtimeProblem(on(version, abi), has)).toBeUndefined();
  });

  it.each([
    ['20.20.2', '115'],
    ['22.11.0', '127'],
    ['18.20.0', '108'],
  ])('refuses Node %s as too old, naming the minimum', (version, abi) => {
    expect(runtimeProblem(on(version, abi), has)).toMatch(new RegExp(`Node\\.js ${version.replace(/\./g, '\\.')} is too old.*22\\.12`));
  });

  it('refuses a line whose WebSocket binary is missing, naming the binary and the ABI', () => {
    const problem = runtimeProblem(on('26.12.1', '147'), has);
    expect(problem).toContain('uws_linux_x64_147.node');
    expect(problem).toContain('ABI 147');
    expect(problem).toContain('Node.js 24');
  });

  it('finds the binary of the Node running this test in the installed package', () => {
    const name = uwsBinaryName({ version: process.versions.node, abi: process.versions.modules, platform: process.platform, arch: process.arch });
    expect(installedUwsBinary(name)).toBe(true);
    expect(installedUwsBinary('uws_linux_x64_1.node')).toBe(false);
  });
});
