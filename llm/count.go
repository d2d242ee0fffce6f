package llm

import "context"

// TokenCounter is a Model whose provider counts a request's input tokens without
// answering it (Anthropic's POST /v1/messages/count_tokens): llm/anthropic's is.
type TokenCounter interface {
	// CountTokens is the number of input tokens req (its system prompt, messages and
	// tools; MaxTokens and Temperature are not read) would take, as the provider
	// counts them.
	CountTokens(ctx context.Context, req *Request) (int64, error)
}
