package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Text turns a result into model-ready text (docs/architecture.md, "Core contracts"): every block as
// [BlockText] renders it, joined by newlines, and the structured content as JSON when
// no block carried text. It is the one normaliser; the format package uses the same
// pieces and only passes images through where a provider takes them.
func Text(r *Result) string {
	if r == nil {
		return ""
	}
	parts := make([]string, 0, len(r.Content)+1)
	hasText := false
	for _, c := range r.Content {
		s, isText := BlockText(c)
		parts = append(parts, s)
		hasText = hasText || isText
	}
	if !hasText {
		if s, ok := StructuredText(r); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// BlockText renders one content block: text as is; "[Image: mime]", "[Audio: mime]";
// "[Resource: uri]" followed by the resource's text, or "(binary, N bytes, mime)" for
// a blob; "[Resource link: uri]". isText reports whether the block carried text of its
// own (a text block or an embedded text resource).
func BlockText(c mcp.Content) (s string, isText bool) {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text, true
	case *mcp.ImageContent:
		return fmt.Sprintf("[Image: %s]", c.MIMEType), false
	case *mcp.AudioContent:
		return fmt.Sprintf("[Audio: %s]", c.MIMEType), false
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[Resource]", false
		}
		head := fmt.Sprintf("[Resource: %s]", r.URI)
		switch {
		case r.Text != "":
			return head + "\n" + r.Text, true
		case len(r.Blob) > 0 && r.MIMEType != "":
			return fmt.Sprintf("%s\n(binary, %d bytes, %s)", head, len(r.Blob), r.MIMEType), false
		case len(r.Blob) > 0:
			return fmt.Sprintf("%s\n(binary, %d bytes)", head, len(r.Blob)), false
		}
		return head, false
	case *mcp.ResourceLink:
		return fmt.Sprintf("[Resource link: %s]", c.URI), false
	}
	return fmt.Sprintf("[%T]", c), false
}

// StructuredText is a result's structured content as compact JSON (HTML characters
// left as they are); ok is false when there is none.
func StructuredText(r *Result) (s string, ok bool) {
	if r == nil || r.StructuredContent == nil {
		return "", false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.StructuredContent); err != nil {
		return "", false
	}
	return strings.TrimRight(buf.String(), "\n"), true
}
