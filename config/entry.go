package config

import (
	"net"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

var prefixRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// ignoredFields are other hosts' per-server settings: they mean nothing to Switchboard
// but are normal in shared files, so they don't deserve a warning.
var ignoredFields = map[string]bool{
	"alwaysAllow": true, "autoApprove": true, "autoStart": true,
}

// entryState tracks what one entry said, for the checks that need several fields.
type entryState struct {
	p    *parser
	path string
	errs int // p.errs length before the entry, to tell whether it added any

	// command and url are set when present (a wrong type counts, so the entry-level
	// checks don't pile on); an empty string counts as absent.
	command, url        *hujson.Value
	urlOK               bool          // url was a non-empty string, worth validating
	typeVal             *hujson.Value // the type (or transport) value that set transport
	typeKey             string        // "type" or "transport"
	disabledV, enabledV *hujson.Value
	disabled, enabled   bool
	stdioOnly, httpOnly []string        // fields that only make sense for one kind of transport
	oauthV              *hujson.Value   // "oauth", when present
	forwardV            *hujson.Value   // "forwardIdentity", when true
	unknown             []string        // fields that field did not know, for unknownFields
	meant               map[string]bool // fields a near miss was taken for (see unknownFields)
}

// entry parses one server entry. ok is false when the entry has errors.
func (p *parser) entry(name, path string, v *hujson.Value) (s Server, ok bool) {
	obj, isObj := v.Value.(*hujson.Object)
	if !isObj {
		p.errAt(v, path, "want an object")
		return s, false
	}
	st := &entryState{p: p, path: path, errs: len(p.errs)}
	s = Server{Name: name, InheritEnv: true}
	seen := map[string]*hujson.Value{}
	for i := range obj.Members {
		m := &obj.Members[i]
		key := keyOf(m)
		fp := path + "." + key
		// null counts as unset: encoding/json writes it for nil fields, and FromValue
		// goes through encoding/json.
		if p.dupKey(seen, m, fp) || isNull(&m.Value) {
			continue
		}
		st.field(&s, key, fp, m)
	}
	st.meant = p.unknownFields(v, path, st.unknown, entryFields, true)
	st.finish(&s, v)
	return s, len(p.errs) == st.errs
}

// field handles one member of an entry.
func (st *entryState) field(s *Server, key, fp string, m *hujson.ObjectMember) {
	p, v := st.p, &m.Value
	switch key {
	case "command":
		raw, ok := p.str(v, fp)
		if !ok || raw != "" {
			st.command = v
		}
		if ok && raw != "" {
			s.Command = p.expand(raw, fp, v)
			if s.Command == "" {
				p.errAt(v, fp, "empty after expansion")
			}
		}
	case "url":
		raw, ok := p.str(v, fp)
		if !ok || raw != "" {
			st.url = v
		}
		if ok && raw != "" {
			st.urlOK = true
			s.URL = p.expand(raw, fp, v)
		}
	case "args":
		s.Args = p.strings(v, fp, true)
		st.stdioOnly = append(st.stdioOnly, key)
	case "env":
		s.Env = st.stringMap(v, fp, true)
		st.stdioOnly = append(st.stdioOnly, key)
	case "cwd":
		if raw, ok := p.str(v, fp); ok {
			s.Cwd = p.expand(raw, fp, v)
		}
		st.stdioOnly = append(st.stdioOnly, key)
	case "inheritEnv":
		s.InheritEnv, _ = p.boolean(v, fp)
	case "headers":
		s.Headers = st.stringMap(v, fp, false)
		st.httpOnly = append(st.httpOnly, key)
	case "oauth":
		st.oauthV = v
		s.OAuth = st.oauth(v, fp)
		st.httpOnly = append(st.httpOnly, key)
	case "forwardIdentity":
		if b, ok := p.boolean(v, fp); ok && b {
			s.ForwardIdentity, st.forwardV = true, v
		}
	case "type", "transport":
		st.transport(s, key, fp, v)
	case "disabled":
		if b, ok := p.boolean(v, fp); ok {
			st.disabledV, st.disabled = v, b
		}
	case "enabled":
		if b, ok := p.boolean(v, fp); ok {
			st.enabledV, st.enabled = v, b
		}
	case "description":
		s.Description, _ = p.str(v, fp)
	case "timeout":
		s.InitTimeout, _ = p.duration(v, fp, zeroDefault)
	case "toolTimeout":
		s.ToolTimeout, _ = p.duration(v, fp, zeroDefault)
	case "heartbeat":
		s.Heartbeat = disableOnZero(p.duration(v, fp, zeroOff))
	case "tools":
		s.Tools = p.tools(v, fp)
	case "prefix":
		if raw, ok := p.str(v, fp); ok {
			if prefixRE.MatchString(raw) {
				s.Prefix = raw
			} else {
				p.errAt(v, fp, "%q must be 1 to 32 letters, digits, '_' or '-'", raw)
			}
		}
	case "required":
		s.Required, _ = p.boolean(v, fp)
	case "approve":
		s.Approve = p.approve(v, fp)
	case "sampling":
		s.Sampling, _ = p.boolean(v, fp)
	case "pinned":
		s.Pinned = p.pinned(v, fp)
	case "protocolVersion":
		if raw, ok := p.str(v, fp); ok {
			if slices.Contains(ProtocolVersions, raw) {
				s.ProtocolVersion = raw
			} else {
				p.errAt(v, fp, "unknown MCP version %q (want one of %s)", raw, strings.Join(ProtocolVersions, ", "))
			}
		}
	case "envFile":
		p.warn(fp, "not supported (ignored)")
	default:
		if !ignoredFields[key] {
			st.unknown = append(st.unknown, key)
		}
	}
}

// transport reads "type" or its alias "transport".
func (st *entryState) transport(s *Server, key, fp string, v *hujson.Value) {
	raw, ok := st.p.str(v, fp)
	if !ok {
		return
	}
	var t Transport
	switch strings.ToLower(raw) {
	case "stdio":
		t = Stdio
	case "http", "streamable-http", "streamable_http", "streamablehttp":
		t = HTTP
	case "sse":
		t = SSE
	default:
		st.p.errAt(v, fp, "unknown transport %q (want stdio, http or sse)", raw)
		return
	}
	if st.typeVal != nil && s.Transport != t {
		st.p.errAt(v, fp, "conflicts with %q", st.typeKey)
		return
	}
	s.Transport, st.typeVal, st.typeKey = t, v, key
}

// finish applies the checks and defaults that involve several fields.
func (st *entryState) finish(s *Server, v *hujson.Value) {
	p := st.p
	if st.disabledV != nil && st.enabledV != nil && st.disabled == st.enabled {
		later := st.disabledV
		if st.enabledV.StartOffset > later.StartOffset {
			later = st.enabledV
		}
		p.errAt(later, st.path, `"disabled" and "enabled" contradict each other`)
	}
	s.Disabled = (st.disabledV != nil && st.disabled) || (st.enabledV != nil && !st.enabled)

	switch {
	case st.command == nil && st.url == nil:
		// A near miss of either ("comand") already says what is wrong.
		if !st.meant["command"] && !st.meant["url"] {
			p.errAt(v, st.path, `"command" or "url" is required`)
		}
		return
	case st.command != nil && st.url != nil:
		p.errAt(v, st.path, `"command" and "url" are mutually exclusive`)
		return
	}
	typePath := st.path + "." + st.typeKey
	switch {
	case st.typeVal == nil && st.command != nil:
		s.Transport = Stdio
	case st.typeVal == nil:
		s.Transport = HTTP
		if u, err := url.Parse(s.URL); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/sse") {
			s.Transport = SSE
		}
	case s.Transport == Stdio && st.command == nil:
		p.errAt(st.typeVal, typePath, `transport "stdio" needs "command"`)
	case s.Transport != Stdio && st.url == nil:
		p.errAt(st.typeVal, typePath, `transport %q needs "url"`, s.Transport)
	}
	if s.Transport == Stdio {
		s.ProjectDir = p.workspace
	}
	if st.urlOK {
		if msg := checkURL(s.URL); msg != "" {
			p.errAt(st.url, st.path+".url", "%s", msg)
		} else if len(s.Headers) > 0 && cleartextRemote(s.URL) {
			p.warn(st.path+".url", "plain http to a host beyond this machine: the headers (credentials, as a rule) travel unencrypted; use https")
		}
	}
	if st.oauthV != nil && s.Transport != Stdio {
		for k := range s.Headers {
			if strings.EqualFold(k, "Authorization") {
				p.errAt(st.oauthV, st.path+".oauth", `conflicts with the "Authorization" header: give the token in "headers" or sign in with "oauth", not both`)
			}
		}
	}
	if st.forwardV != nil && s.Transport == Stdio {
		// Not a warning: a server that counts on knowing its caller must not run
		// thinking it does.
		p.errAt(st.forwardV, st.path+".forwardIdentity", "only an HTTP or SSE server is sent its caller's identity (in headers of its requests); a stdio server has none")
	}
	// Fields for the other kind of transport are harmless but probably a mistake.
	unused := st.httpOnly
	if s.Transport != Stdio {
		unused = st.stdioOnly
	} else {
		s.OAuth = nil
	}
	for _, f := range unused {
		p.warn(st.path+"."+f, "ignored for %s servers", s.Transport)
	}
}

// cleartextRemote reports whether a valid URL is plain http to a host other than
// this machine (localhost or a loopback address).
func cleartextRemote(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme, "http") {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// checkURL validates an expanded URL. The message never quotes the URL or any part of
// it: the URL may hold a token that came from the environment.
func checkURL(raw string) string {
	if raw == "" {
		return "empty after expansion"
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "not a valid URL"
	case u.Scheme == "":
		return "missing scheme"
	case !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
		return "unsupported scheme (want http or https)"
	case u.Host == "":
		return "missing host"
	}
	return ""
}

// stringMap reads env (isEnv) or headers. The env value rule: a string is taken as
// written (after ${VAR} expansion); a number or boolean as its JSON text, exactly as
// written (42, 1.50, true), as hosts do, since a process sees only strings; null, an
// object or an array is an error at its place (null is not "": say "" for empty).
// Header values are strings only.
func (st *entryState) stringMap(v *hujson.Value, fp string, isEnv bool) map[string]string {
	p := st.p
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.errAt(v, fp, "want an object of strings")
		return nil
	}
	out := make(map[string]string, len(obj.Members))
	seen := map[string]*hujson.Value{}
	for i := range obj.Members {
		m := &obj.Members[i]
		key := keyOf(m)
		kp := fp + "." + key
		if p.dupKey(seen, m, kp) {
			continue
		}
		if isEnv && (key == "" || strings.ContainsAny(key, "=\x00")) {
			p.errAt(&m.Name, fp, "invalid variable name %q", key)
			continue
		}
		if !isEnv && !validHeaderName(key) {
			p.errAt(&m.Name, fp, "invalid header name %q", key)
			continue
		}
		if !isEnv && IsIdentityHeader(key) {
			p.warnAt(&m.Name, kp, `dropped: only Switchboard sets %s, from the person of each call of a server with "forwardIdentity": true`, key)
			continue
		}
		lit, _ := m.Value.Value.(hujson.Literal)
		switch k := lit.Kind(); {
		case k == '"':
			out[key] = p.expandSecret(lit.String(), kp, &m.Value)
		case isEnv && (k == '0' || k == 't' || k == 'f'):
			out[key] = string(lit)
		case isEnv && k == 'n':
			p.errAt(&m.Value, kp, `null is not a value (want a string, number or boolean; "" for empty)`)
		case isEnv:
			p.errAt(&m.Value, kp, "want a string, number or boolean")
		default:
			p.errAt(&m.Value, kp, "want a string")
		}
	}
	return out
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// tools reads {"allow": [...], "deny": [...]}.
func (p *parser) tools(v *hujson.Value, fp string) (f ToolFilter) {
	var unknown []string
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		switch key {
		case "allow":
			f.Allow = p.globs(v, kp)
		case "deny":
			f.Deny = p.globs(v, kp)
		default:
			unknown = append(unknown, key)
		}
	})
	p.unknownFields(v, fp, unknown, toolsFields, false)
	return f
}

// globs reads an array of tool-name globs (path.Match syntax), reporting a bad one at
// its place.
func (p *parser) globs(v *hujson.Value, fp string) []string {
	out := p.strings(v, fp, false)
	arr, _ := v.Value.(*hujson.Array)
	for j, g := range out {
		if _, err := path.Match(g, ""); err != nil {
			p.errAt(&arr.Elements[j], fp+"["+strconv.Itoa(j)+"]", "bad pattern %q: %v", g, err)
		}
	}
	return out
}

// str reads a string, reporting any other type.
func (p *parser) str(v *hujson.Value, fp string) (string, bool) {
	s, ok := asString(v)
	if !ok {
		p.errAt(v, fp, "want a string")
	}
	return s, ok
}

// boolean reads a boolean, reporting any other type.
func (p *parser) boolean(v *hujson.Value, fp string) (bool, bool) {
	b, ok := asBool(v)
	if !ok {
		p.errAt(v, fp, "want a boolean")
	}
	return b, ok
}

// strings reads an array of strings, expanding each element when expand is set.
// The result keeps one element per array element (bad ones as ""), so indexes match.
func (p *parser) strings(v *hujson.Value, fp string, expand bool) []string {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		p.errAt(v, fp, "want an array of strings")
		return nil
	}
	out := make([]string, len(arr.Elements))
	for i := range arr.Elements {
		ep := fp + "[" + strconv.Itoa(i) + "]"
		s, ok := asString(&arr.Elements[i])
		switch {
		case !ok:
			p.errAt(&arr.Elements[i], ep, "want a string")
		case expand:
			out[i] = p.expand(s, ep, &arr.Elements[i])
		default:
			out[i] = s
		}
	}
	return out
}
