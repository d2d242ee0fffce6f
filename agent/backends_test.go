package agent_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
)

// startOpenAI serves script as an OpenAI Chat Completions server and returns
// llm/openai's model for it. PLACEHOLDER until llm/openai is merged.
func startOpenAI(tb testing.TB, script fakellm.Script) (llm.Model, *fakellm.Server) {
	tb.Skip("llm/openai not merged yet")
	return nil, nil
}

// startAnthropic serves script as an Anthropic Messages server and returns
// llm/anthropic's model for it. PLACEHOLDER until llm/anthropic is merged.
func startAnthropic(tb testing.TB, script fakellm.Script) (llm.Model, *fakellm.Server) {
	tb.Skip("llm/anthropic not merged yet")
	return nil, nil
}
