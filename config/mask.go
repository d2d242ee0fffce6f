package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/tailscale/hujson"
)

// What an entry shows of its secrets (MaskEntry, for GET /v1/servers/{name}/config),
// and a patch that sends the masks back (WithoutMasked): the values of "env" and
// "headers", the credentials of "url" (its userinfo's password, and the values of
// its query parameters whose names look secret), and "oauth"'s "clientSecret". A
// ${VAR} reference tells no secret and is shown.

// Masked stands for a secret that is not shown (see MaskEntry).
const Masked = "********"

// refRE matches one ${...} reference.
var refRE = regexp.MustCompile(`\$\{[^}]*\}`)

// schemeRE is what may stand before the references of a value that is shown: an
// authorization scheme ("Bearer ${TOKEN}").
var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]* )?$`)

// IsReference reports whether an env or header value is made of ${VAR} references
// only, after an authorization scheme at most ("${TOKEN}", "Bearer ${TOKEN}"):
// such a value tells no secret, and is shown; any other is masked, a reference
// with a default ("${TOKEN:-…}") too, as the default may be one.
func IsReference(v string) bool {
	refs := refRE.FindAllString(v, -1)
	if len(refs) == 0 {
		return false
	}
	for _, r := range refs {
		if strings.Contains(r, ":-") {
			return false
		}
	}
	return schemeRE.MatchString(refRE.ReplaceAllString(v, ""))
}

// MaskEntry returns a server entry (standard JSON) with its secrets that are not
// references (IsReference) replaced by Masked: the values of "env" and "headers",
// the secrets of "url" (MaskURL) and "oauth"'s "clientSecret".
func MaskEntry(entry json.RawMessage) json.RawMessage {
	root, obj, ok := parseEntry(entry)
	if !ok {
		return entry
	}
	maskSecret := func(v *hujson.Value) {
		if s, ok := asString(v); !ok || !IsReference(s) {
			v.Value = hujson.String(Masked)
		}
	}
	for _, vals := range secretMaps(obj) {
		for j := range vals.Members {
			maskSecret(&vals.Members[j].Value)
		}
	}
	if i := memberIndex(obj, "url"); i >= 0 {
		if s, ok := asString(&obj.Members[i].Value); ok {
			obj.Members[i].Value.Value = hujson.String(MaskURL(s))
		}
	}
	if o := oauthOf(obj); o != nil {
		if i := memberIndex(o, "clientSecret"); i >= 0 && !isNull(&o.Members[i].Value) {
			maskSecret(&o.Members[i].Value)
		}
	}
	return json.RawMessage(root.Pack())
}

// WithoutMasked returns a merge patch of the entry stored (standard JSON, as
// ServerEntry gives it; nil when there is none) in which what MaskEntry showed and
// the patch sends back is no change: an "env" or "headers" value or "oauth"'s
// "clientSecret" that is Masked is left out (a merge patch keeps what it does not
// name), and a "url" that keeps a masked secret gets the stored one back
// (UnmaskURL), or is left out when it is the stored url. An *Error (its Path
// "url") when the url's secret cannot be the stored one.
func WithoutMasked(patch, stored json.RawMessage) (json.RawMessage, error) {
	root, obj, ok := parseEntry(patch)
	if !ok {
		return patch, nil
	}
	isMasked := func(m hujson.ObjectMember) bool {
		s, ok := asString(&m.Value)
		return ok && s == Masked
	}
	for _, vals := range secretMaps(obj) {
		vals.Members = slices.DeleteFunc(vals.Members, isMasked)
	}
	if o := oauthOf(obj); o != nil {
		if i := memberIndex(o, "clientSecret"); i >= 0 && isMasked(o.Members[i]) {
			o.Members = slices.Delete(o.Members, i, i+1)
		}
	}
	if i := memberIndex(obj, "url"); i >= 0 {
		if sent, ok := asString(&obj.Members[i].Value); ok && strings.Contains(sent, Masked) {
			was := storedURL(stored)
			u, err := UnmaskURL(sent, was)
			switch {
			case err != nil:
				return nil, &Error{Path: "url", Msg: err.Error()}
			case u == was:
				obj.Members = slices.Delete(obj.Members, i, i+1)
			default:
				obj.Members[i].Value.Value = hujson.String(u)
			}
		}
	}
	return json.RawMessage(root.Pack()), nil
}

// parseEntry parses an entry or a patch, when it is a JSON object.
func parseEntry(entry json.RawMessage) (hujson.Value, *hujson.Object, bool) {
	root, err := hujson.Parse(entry)
	if err != nil {
		return root, nil, false
	}
	obj, ok := root.Value.(*hujson.Object)
	return root, obj, ok
}

// secretMaps are an entry's "env" and "headers" objects, the maps whose values may
// be secrets.
func secretMaps(obj *hujson.Object) []*hujson.Object {
	var out []*hujson.Object
	for _, field := range []string{"env", "headers"} {
		if i := memberIndex(obj, field); i >= 0 {
			if vals, ok := obj.Members[i].Value.Value.(*hujson.Object); ok {
				out = append(out, vals)
			}
		}
	}
	return out
}

// oauthOf is an entry's "oauth" object, or nil.
func oauthOf(obj *hujson.Object) *hujson.Object {
	if i := memberIndex(obj, "oauth"); i >= 0 {
		o, _ := obj.Members[i].Value.Value.(*hujson.Object)
		return o
	}
	return nil
}

// storedURL is the "url" of a stored entry, "" when it has none.
func storedURL(entry json.RawMessage) string {
	var e struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(entry, &e) // not an object, or no url: ""
	return e.URL
}

// urlParts is a URL cut as written, so that what is not masked keeps its bytes
// (net/url takes no "${VAR}" in a userinfo, and would write the rest again).
type urlParts struct {
	prefix   string // the scheme and "://"; "" when there is none (nor a userinfo)
	userinfo string // before the authority's last "@"
	hasUser  bool
	host     string // the host, the port and the path
	query    string // after the first "?"
	hasQuery bool
	frag     string // from the first "#" on, as written
}

func splitURL(s string) urlParts {
	var p urlParts
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s, p.frag = s[:i], s[i:]
	}
	s, p.query, p.hasQuery = strings.Cut(s, "?")
	if i := strings.Index(s, "://"); i >= 0 {
		p.prefix, s = s[:i+3], s[i+3:]
		end := strings.IndexByte(s, '/')
		if end < 0 {
			end = len(s)
		}
		if at := strings.LastIndexByte(s[:end], '@'); at >= 0 {
			p.userinfo, p.hasUser, s = s[:at], true, s[at+1:]
		}
	}
	p.host = s
	return p
}

func (p urlParts) String() string {
	var b strings.Builder
	b.WriteString(p.prefix)
	if p.hasUser {
		b.WriteString(p.userinfo + "@")
	}
	b.WriteString(p.host)
	if p.hasQuery {
		b.WriteString("?" + p.query)
	}
	b.WriteString(p.frag)
	return b.String()
}

// origin is where the URL's credentials go: its scheme, host and port.
func (p urlParts) origin() string {
	host, _, _ := strings.Cut(p.host, "/")
	return strings.ToLower(p.prefix + host)
}

// params are the query's parameters as written ("k=v", split at "&").
func (p urlParts) params() []string {
	if p.query == "" {
		return nil
	}
	return strings.Split(p.query, "&")
}

// MaskURL returns raw with its credentials that are not references (IsReference)
// replaced by Masked: the userinfo's password, or the whole userinfo when it has
// none (a token in the user's place, https://TOKEN@host); and the value of each
// query parameter whose name looks secret (SecretParam). The rest is as written.
func MaskURL(raw string) string {
	p := splitURL(raw)
	if p.hasUser {
		if user, pass, ok := strings.Cut(p.userinfo, ":"); ok {
			if pass != "" && !IsReference(pass) {
				p.userinfo = user + ":" + Masked
			}
		} else if user != "" && !IsReference(user) {
			p.userinfo = Masked
		}
	}
	params := p.params()
	for i, kv := range params {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" && SecretParam(unescapeParam(k)) && !IsReference(v) {
			params[i] = k + "=" + Masked
		}
	}
	if params != nil {
		p.query = strings.Join(params, "&")
	}
	return p.String()
}

// UnmaskURL returns sent, a URL that MaskURL's masks may stand in, with each of
// them given back the secret of stored (the url kept) that it stands for: the
// password (or the userinfo), or the value of the query parameter of the same name
// (the first sent for the first stored, and so on). A masked secret is given back
// only to the scheme, host and port it was stored for, never sent elsewhere: an
// error says to send the secret itself; and so does a mask that stands for none.
func UnmaskURL(sent, stored string) (string, error) {
	if !strings.Contains(sent, Masked) {
		return sent, nil
	}
	sp, st := splitURL(sent), splitURL(stored)
	if sp.origin() != st.origin() {
		return "", fmt.Errorf("%s stands for a secret of the url stored (%s), which goes to its own host only: with another host, send the secret itself", Masked, MaskURL(stored))
	}
	if sp.hasUser {
		user, pass, hasPass := strings.Cut(sp.userinfo, ":")
		_, storedPass, storedHasPass := strings.Cut(st.userinfo, ":")
		switch {
		case hasPass && pass == Masked && storedHasPass:
			sp.userinfo = user + ":" + storedPass
		case hasPass && pass == Masked:
			return "", fmt.Errorf("%s stands for a password, and the url stored has none: send the password itself", Masked)
		case !hasPass && user == Masked && st.hasUser:
			sp.userinfo = st.userinfo
		case !hasPass && user == Masked:
			return "", fmt.Errorf("%s stands for a userinfo, and the url stored has none: send it itself", Masked)
		}
	}
	stored2 := map[string][]string{} // a parameter's stored values, in order
	for _, kv := range st.params() {
		k, v, _ := strings.Cut(kv, "=")
		stored2[k] = append(stored2[k], v)
	}
	params := sp.params()
	for i, kv := range params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v != Masked {
			continue
		}
		vals := stored2[k]
		if len(vals) == 0 {
			return "", fmt.Errorf("%s stands for the query parameter %q, which the url stored has no more of: send its value itself", Masked, k)
		}
		params[i], stored2[k] = k+"="+vals[0], vals[1:]
	}
	if params != nil {
		sp.query = strings.Join(params, "&")
	}
	return sp.String(), nil
}

// unescapeParam is a query parameter's name decoded, as written when it does not
// decode.
func unescapeParam(k string) string {
	if u, err := url.QueryUnescape(k); err == nil {
		return u
	}
	return k
}

// secretParamParts are words of a query parameter's name that mark a credential
// there, beside those of a variable's (secretName): signed URLs carry "sig" and
// "signature", some services a session or a JWT.
var secretParamParts = map[string]bool{"sig": true, "signature": true, "authorization": true,
	"session": true, "sessionid": true, "sid": true, "jwt": true, "bearer": true}

// SecretParam reports whether a URL query parameter's name looks like one that
// carries a secret, whatever its case: a variable's name would (secretName: api_key,
// token, access_token, client_secret, password, x-api-key, auth …), its words split
// where camelCase turns too (accessKey), or one of its words is secretParamParts'
// (sig, signature, session …).
func SecretParam(name string) bool {
	words := paramWords(name)
	if secretName(strings.Join(words, "_")) {
		return true
	}
	return slices.ContainsFunc(words, func(w string) bool { return secretParamParts[w] })
}

// paramWords are the words of a name, lower case: split at what is not a letter
// or a digit, and before an upper-case letter that follows a lower-case one.
func paramWords(name string) []string {
	var words []string
	var cur []rune
	prev := rune(0)
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			if len(cur) > 0 {
				words = append(words, strings.ToLower(string(cur)))
			}
			cur = cur[:0]
		case unicode.IsUpper(r) && unicode.IsLower(prev) && len(cur) > 0:
			words = append(words, strings.ToLower(string(cur)))
			cur = append(cur[:0], r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	if len(cur) > 0 {
		words = append(words, strings.ToLower(string(cur)))
	}
	return words
}
