package agent_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/llm/openai"
)

// startOpenAI serves script as an OpenAI Chat Completions server (closed when the
// test ends) and returns llm/openai's model for it, without retries: a test that
// fails a request means it.
func startOpenAI(tb testing.TB, script fakellm.Script) (llm.Model, *fakellm.Server) {
	tb.Helper()
	srv := fakellm.StartOpenAI(tb, script)
	m, err := openai.New("fake-gpt", &openai.Options{BaseURL: srv.URL, APIKey: "sk-test", MaxRetries: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return m, srv
}

// startOpenAIResponses serves script on the OpenAI fake and returns llm/openai's
// model for its Responses API, without retries.
func startOpenAIResponses(tb testing.TB, script fakellm.Script) (llm.Model, *fakellm.Server) {
	tb.Helper()
	srv := fakellm.StartOpenAI(tb, script)
	m, err := openai.New("fake-gpt", &openai.Options{BaseURL: srv.URL, APIKey: "sk-test", MaxRetries: -1, API: openai.APIResponses})
	if err != nil {
		tb.Fatal(err)
	}
	return m, srv
}

// startAnthropic serves script as an Anthropic Messages server (closed when the test
// ends) and returns llm/anthropic's model for it, without retries.
func startAnthropic(tb testing.TB, script fakellm.Script) (llm.Model, *fakellm.Server) {
	tb.Helper()
	srv := fakellm.StartAnthropic(tb, script)
	m, err := anthropic.New("fake-claude", &anthropic.Options{BaseURL: srv.URL, APIKey: "sk-ant-test", MaxRetries: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return m, srv
}
