package config

import (
	"regexp"
	"strings"

	"github.com/tailscale/hujson"
)

// secretWords mark a variable whose value is a credential by its name alone
// (GITHUB_TOKEN, OPENAI_API_KEY, DB_PASSWORD), wherever it is used.
var secretWords = []string{"token", "secret", "password", "passwd", "apikey", "api_key", "credential", "private"}

// secretParts are name parts (split at '_', '-', '.') that mark a credential on their
// own; as substrings they would catch MONKEY or AUTHOR.
var secretParts = map[string]bool{"key": true, "pat": true, "auth": true, "pass": true, "pw": true}

// secretName reports whether a variable's name says it holds a credential.
func secretName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, part := range strings.FieldsFunc(n, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if secretParts[part] {
			return true
		}
	}
	return false
}

var varNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// expand replaces ${VAR}, ${VAR:-default}, ${env:VAR} and ${env:VAR:-default} in s,
// the value v at path fp, a field whose values are not secrets (command, args, cwd,
// url): what it substitutes is a secret only when the variable's name says so
// (secretName). The default applies when VAR is unset or empty, as in the shell. An
// unset VAR without a default becomes "" with a warning that names the variable and
// fp, never a value. VS Code's ${workspaceFolder} and ${input:ID} are expanded too (see
// Options). Unterminated ${ and anything that isn't a variable name are left as
// written. Substituted text is not expanded again, so a value can't inject references.
func (p *parser) expand(s, fp string, v *hujson.Value) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return p.expandIn(s, fp, v, false, map[string]bool{})
}

// expandSecret is expand for env and header values: everything it substitutes is a
// secret, as the values themselves are.
func (p *parser) expandSecret(s, fp string, v *hujson.Value) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return p.expandIn(s, fp, v, true, map[string]bool{})
}

func (p *parser) expandIn(s, fp string, v *hujson.Value, secret bool, warned map[string]bool) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		end := closingBrace(s, i+2)
		if end < 0 {
			b.WriteString(s[i:])
			return b.String()
		}
		whole, inner := s[i:end+1], s[i+2:end]
		s = s[end+1:]

		if id, ok := strings.CutPrefix(inner, "input:"); ok {
			val, ok := p.input(id, fp, v)
			if !ok {
				b.WriteString(whole)
				continue
			}
			b.WriteString(val)
			if val != "" {
				p.substituted = append(p.substituted, val) // input values are secrets
			}
			continue
		}
		if inner == "workspaceFolder" {
			if p.workspace == "" {
				if !p.workspaceWarned {
					p.workspaceWarned = true
					p.warn(fp, "${workspaceFolder} left as written: the config is not a file")
				}
				b.WriteString(whole)
				continue
			}
			b.WriteString(p.workspace)
			continue
		}
		name, def, hasDef := strings.Cut(strings.TrimPrefix(inner, "env:"), ":-")
		if !varNameRE.MatchString(name) {
			b.WriteString(whole)
			continue
		}
		val, set := p.lookup(name)
		switch {
		case val != "":
			b.WriteString(val)
			// Only secrets are masked: ${HOME} in args is a path a user wants to see.
			if secret || secretName(name) {
				p.substituted = append(p.substituted, val)
			}
		case hasDef:
			b.WriteString(p.expandIn(def, fp, v, secret, warned))
		case !set && !warned[name]:
			warned[name] = true
			p.warn(fp, `${%s} is not set (using "")`, name)
		}
	}
}

// closingBrace finds the "}" that closes a "${" whose body starts at s[start:],
// counting nested "${" so that ${A:-${B}} works. It returns -1 when there is none.
func closingBrace(s string, start int) int {
	depth := 1
	for i := start; i < len(s); i++ {
		switch {
		case s[i] == '}':
			depth--
			if depth == 0 {
				return i
			}
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		}
	}
	return -1
}
