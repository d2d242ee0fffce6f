package config

import (
	"regexp"
	"strings"
)

var varNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// expand replaces ${VAR}, ${VAR:-default}, ${env:VAR} and ${env:VAR:-default} in s,
// the value at path fp. The default applies when VAR is unset or empty, as in the
// shell. An unset VAR without a default becomes "" with a warning that names the
// variable and fp, never a value. ${input:...} (VS Code prompts), unterminated ${ and
// anything that isn't a variable name are left as written. Substituted text is not
// expanded again, so a value can't inject references.
func (p *parser) expand(s, fp string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return p.expandIn(s, fp, map[string]bool{})
}

func (p *parser) expandIn(s, fp string, warned map[string]bool) string {
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

		if strings.HasPrefix(inner, "input:") {
			p.warnInputs()
			b.WriteString(whole)
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
			if !strings.HasSuffix(fp, ".command") && !strings.HasSuffix(fp, ".cwd") {
				p.substituted = append(p.substituted, val)
			}
		case hasDef:
			b.WriteString(p.expandIn(def, fp, warned))
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
