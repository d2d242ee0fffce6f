package config

import (
	"net/url"

	"github.com/tailscale/hujson"
)

// SearchSettings is "switchboard.search": how tool search (switchboard search, and
// tool_search in deferred mode) ranks the catalog.
//
//	"search": {"embeddings": {"baseURL": "http://localhost:11434/v1",
//	                          "model": "nomic-embed-text", "apiKeyEnv": "OLLAMA_KEY",
//	                          "weight": 0.5}}
type SearchSettings struct {
	// Embeddings, when set, combines the lexical ranking with the similarity of
	// embeddings from an OpenAI-compatible /embeddings endpoint. Search never
	// depends on it: when the endpoint fails, the lexical ranking answers alone.
	Embeddings *EmbeddingsSettings `json:"embeddings,omitempty"`
}

// EmbeddingsSettings is "switchboard.search.embeddings".
type EmbeddingsSettings struct {
	// BaseURL is the API's base up to and including /v1 (the client appends
	// /embeddings); empty means OpenAI's.
	BaseURL string `json:"baseURL,omitempty"`
	// Model is the embedding model's name at that endpoint; required.
	Model string `json:"model"`
	// APIKeyEnv names the environment variable holding the API key (the key itself
	// is never in the config); empty means OPENAI_API_KEY. A variable that is not
	// set sends no key, which local servers do not need.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// Weight is the embeddings' share of the score, above 0 and at most 1; 0 means
	// search.DefaultEmbeddingsWeight (0.5).
	Weight float64 `json:"weight,omitempty"`
}

// searchSettings reads "switchboard.search".
func (p *parser) searchSettings(v *hujson.Value, fp string, ss *SearchSettings) {
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		switch key {
		case "embeddings":
			ss.Embeddings = p.embeddingsSettings(v, kp)
		default:
			p.warnAt(v, kp, "unknown setting (ignored)")
		}
	})
}

// embeddingsSettings reads "switchboard.search.embeddings"; nil when it is not an
// object.
func (p *parser) embeddingsSettings(v *hujson.Value, fp string) *EmbeddingsSettings {
	if _, ok := v.Value.(*hujson.Object); !ok {
		p.errAt(v, fp, "want an object")
		return nil
	}
	var es EmbeddingsSettings
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		switch key {
		case "baseURL", "baseUrl":
			if s, ok := p.str(v, kp); ok {
				s = p.expand(s, kp, v)
				if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					p.errAt(v, kp, "want an http(s) URL such as \"http://localhost:11434/v1\"")
					return
				}
				es.BaseURL = s
			}
		case "model":
			es.Model, _ = p.str(v, kp)
		case "apiKeyEnv":
			if s, ok := p.str(v, kp); ok {
				if !varNameRE.MatchString(s) {
					p.errAt(v, kp, "want the name of an environment variable (the key itself never goes in the config)")
					return
				}
				es.APIKeyEnv = s
			}
		case "weight":
			if f, ok := p.number(v, kp); ok {
				if f <= 0 || f > 1 {
					p.errAt(v, kp, "want a number above 0 and at most 1 (the embeddings' share of the score)")
					return
				}
				es.Weight = f
			}
		default:
			p.warnAt(v, kp, "unknown setting (ignored)")
		}
	})
	if es.Model == "" {
		p.errAt(v, fp, `needs "model", the embedding model's name (e.g. "text-embedding-3-small")`)
	}
	return &es
}
