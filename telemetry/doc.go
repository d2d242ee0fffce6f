// Package telemetry is Switchboard's OpenTelemetry tracing: [Setup] reads the
// standard OTEL_* variables and, when they ask for traces, installs a tracer
// provider that exports them; [Tracer] is the tracer every package starts its
// spans with.
//
// Tracing is off unless one of OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and OTEL_SDK_DISABLED is not "true").
// Off, [Tracer] is a no-op tracer, [Enabled] is false, nothing is propagated and no
// exporter goroutine runs: a span costs one atomic load and a context value.
//
// On, the exporter is OTLP over HTTP/protobuf (OTEL_TRACES_EXPORTER "otlp", the
// default; its OTEL_EXPORTER_OTLP_* settings are the SDK's) or "console" (spans
// as JSON on stderr, never stdout: `switchboard mcp` speaks MCP there). The
// resource takes OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, the sampler
// OTEL_TRACES_SAMPLER, the batcher OTEL_BSP_*. The W3C traceparent is the one
// propagation format: an incoming request's is continued ([Extract]), outgoing
// HTTP requests carry it ([Inject]), and MCP requests carry it in params._meta as
// well ([InjectMeta]), as the MCP semantic conventions recommend:
//
//	Instrumentations SHOULD propagate trace context inside MCP request
//	params._meta property bag.
//
// Whoever calls Setup owns what it started: its shutdown flushes the spans still
// queued and stops the exporter (the CLI calls it as the command ends).
//
// The spans follow the GenAI and MCP semantic conventions: invoke_agent around a
// turn (agent), chat {model} around a model request (llm/openai, llm/anthropic),
// execute_tool {tool} around a tool call of the agent's, and a CLIENT span
// tools/call {tool} around the request to the MCP server (upstream).
package telemetry
