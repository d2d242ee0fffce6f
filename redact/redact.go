// Package redact masks secrets in text and in log records: the values a config
// holds (environment values, header values, ${input:...} answers, API keys) and
// anything shaped like a bearer token or a provider's API key.
//
// A Redactor is a value its owner fills: hub.New registers its config's secrets
// with its own (hub.Options.Redactor, to share one), and a program that logs
// wraps its handler with the same one, so that no log line carries them:
//
//	var r redact.Redactor
//	r.Add(cfg.Secrets()...)
//	log := slog.New(r.Handler(slog.NewTextHandler(os.Stderr, nil)))
//	h := hub.New(cfg, &hub.Options{Logger: log, Redactor: &r})
//	fmt.Println(r.String(err.Error())) // an error that may quote a secret
//
// Masking is by value, so it catches a secret wherever it travels: quoted by %q,
// escaped in JSON or in a URL too.
package redact

import (
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Mask replaces every redacted value.
const Mask = "[REDACTED]"

// minSecretLen keeps very short values ("1", "on") from being masked everywhere they
// appear in a log line, which would make logs unreadable without protecting anything.
const minSecretLen = 4

// tokenPatterns match credentials by their shape, whether or not they were configured.
var tokenPatterns = []*regexp.Regexp{
	// Authorization header values.
	regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}`),
	// Provider API keys and personal tokens, by their well-known prefixes.
	regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),
}

// keyValuePattern matches key=value and "key": "value" pairs whose key names a secret;
// the key is kept so the line still says what was there.
var keyValuePattern = regexp.MustCompile(
	`(?i)((?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|authorization|client[_-]?secret)["']?\s*[:=]\s*["']?)([^\s"'&,;}]{4,})`)

// sensitiveKey reports whether an attribute key names a secret, so its whole value is masked.
func sensitiveKey(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"token", "secret", "password", "passwd", "authorization", "api_key", "apikey", "cookie", "credential"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// Redactor masks secrets in text: values registered with Add (configured env values,
// header values) and anything shaped like a bearer token or API key.
// The zero value is ready to use and safe for concurrent use; a nil *Redactor
// masks the shapes only.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // longest first, so a secret that contains another is masked whole
}

// Add registers values that must never appear in output: as they are, and in the
// forms messages carry them in when they hold quotes, backslashes, control or
// non-ASCII characters, or URL metacharacters (quoted by %q, escaped in JSON,
// escaped in a URL's query or path).
func (r *Redactor) Add(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[string]bool, len(r.secrets))
	for _, s := range r.secrets {
		seen[s] = true
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minSecretLen {
			continue
		}
		for _, form := range secretForms(v) {
			if len(form) >= minSecretLen && !seen[form] {
				seen[form] = true
				r.secrets = append(r.secrets, form)
			}
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// secretForms are v and the escaped forms of it that differ from it.
func secretForms(v string) []string {
	q := strconv.Quote(v)
	j, _ := json.Marshal(v)
	return []string{v, q[1 : len(q)-1], string(j[1 : len(j)-1]), url.QueryEscape(v), url.PathEscape(v)}
}

// String returns s with every secret masked.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	if r != nil {
		r.mu.RLock()
		for _, secret := range r.secrets {
			if strings.Contains(s, secret) {
				s = strings.ReplaceAll(s, secret, Mask)
			}
		}
		r.mu.RUnlock()
	}
	for _, p := range tokenPatterns {
		s = p.ReplaceAllStringFunc(s, maskAfterScheme)
	}
	return keyValuePattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := keyValuePattern.FindStringSubmatch(m)
		switch strings.ToLower(sub[2]) {
		case "bearer", "basic", "token", strings.ToLower(Mask):
			return m // a scheme word; the credential after it was masked above
		}
		// "key: word", unquoted after a colon and a space, is how prose reads ("no
		// bearer token: send Authorization: Bearer TOKEN"); a quoted value or one
		// after "=" is masked whatever it looks like.
		// A password or secret, though, is often a word a person chose ("password:
		// letmein"): masked whatever it looks like.
		key := strings.ToLower(sub[1])
		chosen := strings.Contains(key, "pass") || strings.Contains(key, "secret")
		if !chosen && strings.HasSuffix(sub[1], " ") && strings.Contains(sub[1], ":") && wordOrPlaceholder(sub[2]) {
			return m
		}
		return sub[1] + Mask
	})
}

// maskAfterScheme keeps an auth scheme word ("Bearer") and masks the credential after
// it, unless that is a placeholder ("Bearer YOUR_TOKEN") or, after "token", a word
// ("no token provided"): prose, not a credential.
func maskAfterScheme(m string) string {
	i := strings.IndexAny(m, " \t")
	if i <= 0 {
		return Mask
	}
	v := strings.TrimLeft(m[i:], " \t")
	if wordOrPlaceholder(v) && (strings.EqualFold(m[:i], "token") || strings.ToUpper(v) == v) {
		return m
	}
	return m[:i+1] + Mask
}

// wordOrPlaceholder reports whether s is letters of one case, with '_' or '-'
// between them: an English word ("send") or a placeholder ("TOKEN", "YOUR_API_KEY").
// Credentials that services and people make carry digits or mixed case; a secret of
// lower-case letters alone is masked by value (Add), not by its shape.
func wordOrPlaceholder(s string) bool {
	lower, upper := false, false
	for _, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case c == '_' || c == '-':
		default:
			return false
		}
	}
	return lower != upper
}

// URL masks a URL's password and every query value (tokens often travel there),
// then the secrets r knows. An unparsable URL is masked whole.
func (r *Redactor) URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return Mask
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"xxxxx"}
		}
		u.RawQuery = q.Encode()
	}
	return r.String(u.String())
}
