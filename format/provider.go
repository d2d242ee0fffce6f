package format

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/tool"
)

// Provider names a tool wire format.
type Provider string

const (
	// MCP is the Model Context Protocol's own tool shape (tools/list).
	MCP Provider = "mcp"
	// OpenAI is the OpenAI Chat Completions API (and the many APIs compatible with it).
	OpenAI Provider = "openai"
	// OpenAIResponses is the OpenAI Responses API.
	OpenAIResponses Provider = "openai-responses"
	// Anthropic is the Anthropic Messages API.
	Anthropic Provider = "anthropic"
)

// Providers lists every supported provider.
var Providers = []Provider{MCP, OpenAI, OpenAIResponses, Anthropic}

// mcpNamePattern is MCP's looser rule (1–128 of [A-Za-z0-9_.-], plus "/" which some
// servers use for namespacing).
var mcpNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_./-]{1,128}$`)

// ParseProvider parses a provider name, case-insensitively. "openai-chat" is accepted
// as an alias of "openai" and "responses" of "openai-responses".
func ParseProvider(s string) (Provider, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "mcp":
		return MCP, nil
	case "openai", "openai-chat":
		return OpenAI, nil
	case "openai-responses", "responses":
		return OpenAIResponses, nil
	case "anthropic":
		return Anthropic, nil
	}
	return "", fmt.Errorf("unknown provider %q (want mcp, openai, openai-responses or anthropic)", s)
}

func (p Provider) valid() error {
	if slices.Contains(Providers, p) {
		return nil
	}
	return fmt.Errorf("unknown provider %q", string(p))
}

// checkName says why name is not a valid tool name for the provider: OpenAI and
// Anthropic take [tool.NamePattern], MCP its own 1–128 characters.
func (p Provider) checkName(name string) error {
	if p == MCP {
		if !mcpNamePattern.MatchString(name) {
			return fmt.Errorf("name %q is not a valid MCP tool name (1-128 characters of A-Z a-z 0-9 _ - . /)", name)
		}
		return nil
	}
	if !tool.NamePattern.MatchString(name) {
		return fmt.Errorf("name %q does not match %s", name, tool.NamePattern)
	}
	return nil
}

func (p Provider) isOpenAI() bool { return p == OpenAI || p == OpenAIResponses }
