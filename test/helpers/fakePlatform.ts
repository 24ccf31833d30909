// The fake chat platform ships with the test kit (@agent-hub/testing); the project's tests use the same one.
export * from '../../src/testing/fakePlatform.js';
