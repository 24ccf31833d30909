// Import direction of the hub (README "Layout"): root → edges → features (cluster among them) → actors → delivery core
// → store → base → protocol. A module may import its own room and the rooms below it, never above.
// The client (and the CLI and example agents built on it) imports protocol only. The test kit (src/testing,
// @agent-hub/testing) sits above all of them: it may import the hub and the client, and nothing imports it.
const layers = {
  protocol: '^src/protocol/',
  base: '^src/(errors|clock|logger|config)[.]ts$|^src/metrics/',
  store: '^src/store/',
  delivery: '^src/delivery/',
  actors: '^src/actors/',
  features: '^src/(butler|connector|auth|ops|services|cluster|a2a)/',
  edges: '^src/(http|ws|mcp)/',
  root: '^src/(main|hub|shutdown)[.]ts$|^src/(root|server)/',
  client: '^src/(client|cli|examples)/',
  testing: '^src/testing/',
};
const order = ['protocol', 'base', 'store', 'delivery', 'actors', 'features', 'edges', 'root'];
const hubOnly = Object.values(layers).join('|');

const upward = order.slice(0, -1).map((layer, i) => ({
  name: `${layer}-imports-upward`,
  comment: `${layer} may import only ${order.slice(0, i + 1).join(', ')}`,
  severity: 'error',
  from: { path: layers[layer] },
  to: { path: [...order.slice(i + 1).map((l) => layers[l]), layers.client] },
}));

export default {
  forbidden: [
    ...upward,
    {
      name: 'core-imports-the-cluster',
      comment: 'the delivery core declares the ports (bus, leadership, presence, ledger); cluster/ implements them, never the other way',
      severity: 'error',
      from: { path: layers.delivery },
      to: { path: '^src/cluster/' },
    },
    {
      name: 'feature-imports-the-cluster',
      comment: 'features use the ports, never Redis or the lease: only the composition root (src/root/) builds cluster/',
      severity: 'error',
      from: { path: '^src/(butler|connector|auth|ops|services|actors|http|ws|mcp|a2a)/' },
      to: { path: '^src/cluster/' },
    },
    {
      name: 'cluster-imports-a-feature',
      comment: "the cluster carries the features' messages without knowing them, nor any use case or transport",
      severity: 'error',
      from: { path: '^src/cluster/' },
      to: { path: '^src/(butler|connector|auth|services|ops|http|ws|mcp|a2a)/' },
    },
    {
      name: 'client-imports-the-hub',
      comment: 'the client, the CLI and the example agents import protocol (and each other) only',
      severity: 'error',
      from: { path: layers.client },
      to: { path: hubOnly, pathNot: `${layers.protocol}|${layers.client}` },
    },
    {
      name: 'hub-imports-the-client',
      comment: 'the hub never imports the client package',
      severity: 'error',
      from: { path: order.map((l) => layers[l]).join('|') },
      to: { path: layers.client },
    },
    {
      name: 'hub-imports-the-testing-kit',
      comment: "src/testing/ (simulated time) is for test kits: nothing on the hub's start path may load it",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/testing/' },
      to: { path: '^src/testing/' },
    },
    {
      name: 'testing-imports-the-hub',
      comment:
        'the simulated timers implement the base ports (clock.ts) and import nothing else of the hub (the kit around them may import the hub and the client)',
      severity: 'error',
      from: { path: '^src/testing/simulatedTimers[.]ts$' },
      to: { path: hubOnly, pathNot: `${layers.base}|${layers.protocol}` },
    },
    {
      name: 'no-circular',
      comment: 'modules of the hub import each other in one direction',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'folders import each other in one direction too: a module of A importing B while one of B imports A makes A and B one room',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
  },
};
