// The fake model server ships with the test kit (@agent-hub/testing); the project's tests use the same one.
export * from '../../src/testing/fakeModel.js';
