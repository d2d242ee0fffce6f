package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/switchboard-mcp/switchboard/host"
)

// A server's question during a call (elicitation/create, MCP 2025-11-25) is asked
// at the terminal: a form field by field, its defaults taken on Enter (SEP-1034:
// "Clients that support defaults SHOULD pre-populate form fields with these
// values"), or a URL to open, which chat prints and never opens itself ("MUST NOT
// open the URL without explicit consent from the user", "MUST show the full URL").

// elicit asks the person at the terminal what a server wants (p): a URL to open, or
// whether to answer at all and then each field of the form (required ones first).
// An answer of no is declined; an interrupted one cancelled.
func (o *chatOutput) elicit(ctx context.Context, server string, p *host.ElicitParams) (*host.ElicitResult, error) {
	if p.Mode == "url" {
		o.term.Lock()
		defer o.term.Unlock()
		return o.elicitURL(ctx, server, p.Message, p.URL), nil
	}
	form, err := host.ReadForm(p.RequestedSchema)
	if err != nil {
		form = &host.Form{} // asked whether to answer, with no field
	}
	return o.elicitForm(ctx, server, p.Message, form), nil
}

// elicitForm asks whether to answer a server's question at all, then each field of
// its form (required ones first), each value checked against the field's schema.
func (o *chatOutput) elicitForm(ctx context.Context, server, message string, form *host.Form) *host.ElicitResult {
	o.term.Lock()
	defer o.term.Unlock()
	answer, err := o.ask(ctx, fmt.Sprintf("%s asks: %s\nAnswer? [y/N] ", termText(server), termText(message)))
	if err != nil {
		return &host.ElicitResult{Action: "cancel"}
	}
	if !strings.HasPrefix(strings.ToLower(answer), "y") {
		return &host.ElicitResult{Action: "decline"}
	}
	content := map[string]any{}
	for _, f := range form.Fields {
		for {
			line, err := o.ask(ctx, fieldQuestion(f))
			if err != nil {
				return &host.ElicitResult{Action: "cancel"}
			}
			if line == "" {
				if f.Default != nil {
					content[f.Name] = f.Default // Enter takes the default
					break
				}
				if !f.Required {
					break // the field stays out
				}
				fmt.Fprintln(o.stderr, "  (required)")
				continue
			}
			v, err := elicitValue(f, line)
			if err == nil {
				err = f.Check(asJSON(v))
			}
			if err != nil {
				fmt.Fprintf(o.stderr, "  (%s)\n", termText(err.Error()))
				continue
			}
			content[f.Name] = v
			break
		}
	}
	return &host.ElicitResult{Action: "accept", Content: content}
}

// asJSON is v as JSON decodes it (an int64 as a float64, []string as []any), as a
// schema checks it.
func asJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// fieldQuestion is the line that asks for one field: its title (or name), what it
// is, its choices and its default, which Enter takes.
func fieldQuestion(f *host.FormField) string {
	q := f.Name
	if f.Title != "" {
		q = f.Title
	}
	q = termText(q)
	if f.Description != "" {
		q += " (" + termText(f.Description) + ")"
	}
	if cs := f.Choices; len(cs) > 0 {
		var shown []string
		for _, c := range cs {
			s := c.Const
			if c.Title != "" && c.Title != c.Const {
				s += "=" + c.Title
			}
			shown = append(shown, termText(s))
		}
		q += " [" + strings.Join(shown, "/") + "]"
		if f.Type == "array" {
			q += " (several: a, b)"
		}
	} else if f.Type == "boolean" {
		q += " [y/n]"
	}
	if f.Default != nil {
		d, _ := json.Marshal(f.Default)
		q += " default " + termText(string(d))
	}
	return q + ": "
}

// elicitURL shows a URL-mode question: the server, its message, the page's host and
// whole address; Enter says the person opens it (accept), n declines. The end of
// input, or an interruption, cancels.
func (o *chatOutput) elicitURL(ctx context.Context, server, message, address string) *host.ElicitResult {
	site := "?"
	if u, err := url.Parse(address); err == nil && u.Host != "" {
		site = u.Host
	}
	warn := ""
	if strings.Contains(site, "xn--") {
		warn = "  (the address has international characters, as punycode: check it is the site you expect)\n"
	}
	o.mu.Lock()
	o.breakLine()
	fmt.Fprintf(o.stderr, "%s asks you to open a page on %s: %s\n  %s\n%sOpen it in your browser, then press Enter (n to decline): ",
		termText(server), termText(site), termText(message), termText(address), warn)
	o.mu.Unlock()
	line, err := readLineCtx(ctx, os.Stdin)
	switch {
	case ctx.Err() != nil, errors.Is(err, io.EOF):
		return &host.ElicitResult{Action: "cancel"}
	case strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "n"):
		return &host.ElicitResult{Action: "decline"}
	}
	return &host.ElicitResult{Action: "accept"}
}

// elicitValue converts what was typed to the field's type: one of its choices (by
// value or title), several of them separated by commas, a number, a boolean (y/n,
// true/false) or the text.
func elicitValue(f *host.FormField, s string) (any, error) {
	cs := f.Choices
	pick := func(s string) (string, error) {
		for _, c := range cs {
			if s == c.Const || (c.Title != "" && strings.EqualFold(s, c.Title)) {
				return c.Const, nil
			}
		}
		var want []string
		for _, c := range cs {
			want = append(want, c.Const)
		}
		return "", fmt.Errorf("want one of %s", strings.Join(want, ", "))
	}
	switch {
	case f.Type == "array":
		var out []string
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			v := part
			if len(cs) > 0 {
				var err error
				if v, err = pick(part); err != nil {
					return nil, err
				}
			}
			out = append(out, v)
		}
		return out, nil
	case len(cs) > 0:
		return pick(s)
	}
	switch f.Type {
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want a whole number")
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("want a number")
		}
		return n, nil
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("want y or n")
	}
	return s, nil
}

// termText is a server's text as the terminal shows it: its control characters (an
// escape sequence that would move the cursor or retitle the window) as '?'; line
// breaks and tabs stay.
func termText(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}
