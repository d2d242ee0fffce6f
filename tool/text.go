package tool

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Text turns a result into model-ready text (DESIGN.md, "Result"): text blocks joined by
// newlines; "[Image: mime]", "[Audio: mime]"; "[Resource: uri]" followed by the
// resource's text when it is embedded text; "[Resource link: uri]"; and the structured
// content as JSON when there is no text at all.
func Text(r *Result) string {
	if r == nil {
		return ""
	}
	parts := make([]string, 0, len(r.Content))
	hasText := false
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			hasText = true
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[Image: %s]", c.MIMEType))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[Audio: %s]", c.MIMEType))
		case *mcp.EmbeddedResource:
			if c.Resource == nil {
				parts = append(parts, "[Resource]")
				continue
			}
			parts = append(parts, fmt.Sprintf("[Resource: %s]", c.Resource.URI))
			switch {
			case c.Resource.Text != "":
				parts = append(parts, c.Resource.Text)
				hasText = true
			case len(c.Resource.Blob) > 0:
				parts = append(parts, fmt.Sprintf("(binary, %d bytes, %s)", len(c.Resource.Blob), c.Resource.MIMEType))
			}
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[Resource link: %s]", c.URI))
		default:
			parts = append(parts, fmt.Sprintf("[%T]", c))
		}
	}
	if !hasText && r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}
