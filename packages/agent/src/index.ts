// @tangent/agent: The agent loop, models (AI SDK providers + offline demo model) and tools.
export {}
