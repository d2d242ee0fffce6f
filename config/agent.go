package config

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"
)

// ModelSettings is "switchboard.model": the model an agent talks to.
//
//	"model": {"provider": "openai", "name": "gpt-4.1-mini",
//	          "baseURL": "http://localhost:11434/v1", "apiKeyEnv": "OPENAI_API_KEY",
//	          "maxTokens": 4096, "temperature": 0.2}
type ModelSettings struct {
	// Provider is "openai" (any OpenAI-compatible Chat Completions endpoint) or
	// "anthropic" (the Messages API).
	Provider string `json:"provider,omitempty"`
	// Name is the model's name at the provider.
	Name string `json:"name,omitempty"`
	// BaseURL is the API's base URL; empty means the provider's own.
	BaseURL string `json:"baseURL,omitempty"`
	// APIKeyEnv names the environment variable that holds the API key (the key itself
	// is never in the config); empty means [DefaultAPIKeyEnv] of the provider.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// MaxTokens bounds each reply; 0 means the backend's default.
	MaxTokens int `json:"maxTokens,omitempty"`
	// Temperature, when set, is passed to the model.
	Temperature *float64 `json:"temperature,omitempty"`
	// ContextWindow is the model's context window in tokens, which "deferred":
	// "auto:N%" takes its share of; 0 means deferred.DefaultContextWindow (128,000).
	ContextWindow int `json:"contextWindow,omitempty"`
	// ToolSearch is the provider's own tool search used by "deferred": {"native":
	// true}: "bm25" (the default), "regex", or "off" for a server or model without
	// it: Anthropic's Messages API. (OpenAI's Responses API, "api": "responses", has
	// one search of its own, used by native deferred mode whatever this says.)
	ToolSearch string `json:"toolSearch,omitempty"`
	// API is the OpenAI API the "openai" provider speaks: "chat" (the default: Chat
	// Completions, which OpenAI and every compatible server have) or "responses"
	// (OpenAI's Responses API). Native tool search with OpenAI ("deferred":
	// {"native": true}) needs "responses": Chat Completions has none, and the agent
	// falls back to Switchboard's own search there. Not read for "anthropic".
	API string `json:"api,omitempty"`
	// MaxTokensParam is the name the "openai" provider's Chat Completions requests
	// give the token limit: "max_completion_tokens" or "max_tokens"; empty picks by
	// host (OpenAI's own takes max_completion_tokens, every other max_tokens).
	MaxTokensParam string `json:"maxTokensParam,omitempty"`
}

// ModelAPIs are the values of "model.api".
var ModelAPIs = []string{"chat", "responses"}

// MaxTokensParams are the values of "model.maxTokensParam".
var MaxTokensParams = []string{"max_completion_tokens", "max_tokens"}

// ToolSearches are the values of "model.toolSearch".
var ToolSearches = []string{"bm25", "regex", "off"}

// Providers of models that Switchboard has a backend for.
var ModelProviders = []string{"openai", "anthropic"}

// DefaultAPIKeyEnv is the environment variable an API key is read from when the model
// settings name none.
func DefaultAPIKeyEnv(provider string) string {
	if provider == "anthropic" {
		return "ANTHROPIC_API_KEY"
	}
	return "OPENAI_API_KEY"
}

// AgentSettings is "switchboard.agent": how the chat + tool loop runs.
type AgentSettings struct {
	// MaxSteps is how many model requests with tools a turn may make before one last
	// request without tools for the final answer; 0 means agent.DefaultMaxSteps (10).
	MaxSteps int `json:"maxSteps,omitempty"`
	// ParallelTools bounds the tool calls of one step that run at once; 0 means
	// agent.DefaultParallelTools (8).
	ParallelTools int `json:"parallelTools,omitempty"`
	// System is the system prompt of new sessions.
	System string `json:"system,omitempty"`
	// Deferred, when set, is the agent's deferred mode instead of
	// "switchboard.deferred".
	Deferred *DeferredSettings `json:"deferred,omitempty"`
}

// SessionSettings is "switchboard.sessions": where conversations are kept.
type SessionSettings struct {
	// Store is "sqlite" (default: a file under the data directory), "memory" (gone
	// with the process) or "postgres" (shared by several hosts; DSN says where).
	Store string `json:"store,omitempty"`
	// Path is the SQLite file; empty means sessions.db in the data directory.
	Path string `json:"path,omitempty"`
	// DSN is the PostgreSQL connection string (${VAR} expanded; masked as a secret).
	DSN string `json:"dsn,omitempty"`
	// Timeout removes sessions idle longer than this; 0 means session.DefaultTimeout
	// (1 h), and "0" in the file disables it (stored as -1).
	Timeout time.Duration `json:"timeout,omitempty"`
}

// SessionStores are the values of "sessions.store".
var SessionStores = []string{"sqlite", "memory", "postgres"}

// NeedsApproval reports whether a call of the server's tool (its original name) must
// be approved before it runs: "approve" lists globs of the tools that need it.
func (s *Server) NeedsApproval(tool string) bool {
	// An empty Allow lets everything through, so no globs must mean no approval.
	return len(s.Approve) > 0 && ToolFilter{Allow: s.Approve}.Allows(tool)
}

// members walks an object's members at fp, skipping nulls and reporting duplicate
// keys; a value that is not an object is an error.
func (p *parser) members(v *hujson.Value, fp string, fn func(key, kp string, v *hujson.Value)) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.errAt(v, fp, "want an object")
		return
	}
	seen := map[string]*hujson.Value{}
	for i := range obj.Members {
		m := &obj.Members[i]
		key := keyOf(m)
		kp := fp + "." + key
		if p.dupKey(seen, m, kp) || isNull(&m.Value) {
			continue
		}
		fn(key, kp, &m.Value)
	}
}

// modelSettings reads "switchboard.model".
func (p *parser) modelSettings(v *hujson.Value, fp string, ms *ModelSettings) {
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		switch key {
		case "provider":
			if s, ok := p.str(v, kp); ok {
				ms.Provider = p.oneOf(v, kp, strings.ToLower(s), ModelProviders)
			}
		case "name":
			ms.Name, _ = p.str(v, kp)
		case "baseURL", "baseUrl":
			if s, ok := p.str(v, kp); ok {
				ms.BaseURL = p.expand(s, kp, v)
			}
		case "apiKeyEnv":
			if s, ok := p.str(v, kp); ok {
				if !varNameRE.MatchString(s) {
					p.errAt(v, kp, "want the name of an environment variable (the key itself never goes in the config)")
					return
				}
				ms.APIKeyEnv = s
			}
		case "maxTokens":
			ms.MaxTokens, _ = p.count(v, kp, 1)
		case "contextWindow":
			ms.ContextWindow, _ = p.count(v, kp, 1)
		case "toolSearch":
			if s, ok := p.str(v, kp); ok {
				ms.ToolSearch = p.oneOf(v, kp, strings.ToLower(s), ToolSearches)
			}
		case "api":
			if s, ok := p.str(v, kp); ok {
				ms.API = p.oneOf(v, kp, strings.ToLower(s), ModelAPIs)
			}
		case "maxTokensParam":
			if s, ok := p.str(v, kp); ok {
				ms.MaxTokensParam = p.oneOf(v, kp, strings.ToLower(s), MaxTokensParams)
			}
		case "temperature":
			if f, ok := p.number(v, kp); ok {
				if f < 0 || f > 2 {
					p.errAt(v, kp, "want a number from 0 to 2")
					return
				}
				ms.Temperature = &f
			}
		default:
			p.warnAt(v, kp, "unknown setting (ignored)")
		}
	})
}

// agentSettings reads "switchboard.agent".
func (p *parser) agentSettings(v *hujson.Value, fp string, as *AgentSettings) {
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		switch key {
		case "maxSteps":
			as.MaxSteps, _ = p.count(v, kp, 1)
		case "parallelTools":
			as.ParallelTools, _ = p.count(v, kp, 1)
		case "system":
			as.System, _ = p.str(v, kp)
		case "deferred":
			as.Deferred = p.deferredSettings(v, kp)
		default:
			p.warnAt(v, kp, "unknown setting (ignored)")
		}
	})
}

// sessionSettings reads "switchboard.sessions".
func (p *parser) sessionSettings(v *hujson.Value, fp string, ss *SessionSettings) {
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		switch key {
		case "store":
			if s, ok := p.str(v, kp); ok {
				ss.Store = p.oneOf(v, kp, strings.ToLower(s), SessionStores)
			}
		case "path":
			if s, ok := p.str(v, kp); ok {
				ss.Path = p.expand(s, kp, v)
			}
		case "dsn":
			if s, ok := p.str(v, kp); ok {
				ss.DSN = p.expandSecret(s, kp, v)
				// The whole DSN is masked in logs, and its password alone too (an
				// error may quote part of it).
				p.substituted = append(p.substituted, ss.DSN)
				p.substituted = append(p.substituted, urlSecrets(ss.DSN)...)
			}
		case "timeout":
			ss.Timeout = disableOnZero(p.duration(v, kp, zeroOff))
		default:
			p.warnAt(v, kp, "unknown setting (ignored)")
		}
	})
	if ss.Store == "postgres" && ss.DSN == "" {
		p.errAt(v, fp, `"store": "postgres" needs "dsn" (a PostgreSQL connection string)`)
	}
}

// approve reads a server's "approve": a list of tool globs whose calls need the user's
// approval, "always" (every tool) or "never" (none, the default).
func (p *parser) approve(v *hujson.Value, fp string) []string {
	if s, ok := asString(v); ok {
		switch strings.ToLower(s) {
		case "never":
			return nil
		case "always":
			return []string{"*"}
		}
		p.errAt(v, fp, `want "always", "never" or a list of tool globs`)
		return nil
	}
	return p.globs(v, fp)
}

// oneOf returns s when it is one of allowed, else reports it and returns "".
func (p *parser) oneOf(v *hujson.Value, fp, s string, allowed []string) string {
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	p.errAt(v, fp, "unknown value %q (want %s)", s, strings.Join(allowed, ", "))
	return ""
}

// number reads a JSON number.
func (p *parser) number(v *hujson.Value, fp string) (float64, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '0' {
		p.errAt(v, fp, "want a number")
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || math.IsInf(f, 0) {
		p.errAt(v, fp, "want a number")
		return 0, false
	}
	return f, true
}

// count reads a whole number of at least min.
func (p *parser) count(v *hujson.Value, fp string, min int) (int, bool) {
	f, ok := p.number(v, fp)
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) || f < float64(min) || f > math.MaxInt32 {
		p.errAt(v, fp, "want a whole number of at least %d", min)
		return 0, false
	}
	return int(f), true
}
