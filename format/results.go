package format

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/jsonenc"
	"github.com/switchboard-mcp/switchboard/tool"
)

// DefaultMaxChars is the default size cap of one result's text, in characters.
const DefaultMaxChars = 100_000

// noOutput stands in for a result with no content: the providers reject empty text
// blocks (Anthropic), and the model should see that the call did finish.
const noOutput = "(no output)"

// Part is one piece of a normalised result: text, or an image the provider accepts.
type Part struct {
	Type     string `json:"type"` // PartText or PartImage
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"` // images
	Data     string `json:"data,omitempty"`     // images: base64 (standard encoding)
}

// Part types.
const (
	PartText  = "text"
	PartImage = "image"
)

// NormalizeOptions tunes Normalize; nil, and every zero field, is the default.
type NormalizeOptions struct {
	// Images keeps images as image parts instead of "[Image: mime]" placeholders.
	Images bool
	// ImageTypes restricts the images kept to these MIME types (nil = any); the others
	// become placeholders.
	ImageTypes []string
	// MaxChars caps the text, counted in characters (runes) over all text parts:
	// 0 means DefaultMaxChars, a negative value means no cap. Text beyond the cap is
	// cut on a character boundary and followed by a marker saying how much was cut.
	MaxChars int
}

// anthropicImageTypes are the image types the Messages API accepts in an image block
// (source.media_type: image/jpeg, image/png, image/gif, image/webp).
var anthropicImageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// Normalize turns a result into parts, following docs/architecture.md ("Core contracts"): text blocks
// joined by newlines; an image as an image part when opts.Images allows it, otherwise
// "[Image: mime]"; "[Audio: mime]"; an embedded resource as "[Resource: uri]" followed
// by its text, or by "(binary, N bytes, mime)" for a blob; "[Resource link: uri]"; and
// the structured content as JSON when there is no text at all. Consecutive text is one
// part; text around an image makes separate parts. IsError is not reflected here (see
// ResultMessage). A nil result has no parts.
func Normalize(res *tool.Result, opts *NormalizeOptions) []Part {
	if res == nil {
		return nil
	}
	var o NormalizeOptions
	if opts != nil {
		o = *opts
	}
	var parts []Part
	var run []string
	flush := func() {
		if len(run) > 0 {
			parts = append(parts, Part{Type: PartText, Text: strings.Join(run, "\n")})
			run = nil
		}
	}
	hasText := false
	for _, c := range res.Content {
		if img, ok := c.(*mcp.ImageContent); ok && o.Images && len(img.Data) > 0 && imageAllowed(img.MIMEType, o.ImageTypes) {
			flush()
			parts = append(parts, Part{Type: PartImage, MIMEType: img.MIMEType, Data: base64.StdEncoding.EncodeToString(img.Data)})
			continue
		}
		// Everything else is rendered by the one normaliser, tool.BlockText.
		s, isText := tool.BlockText(c)
		run = append(run, s)
		hasText = hasText || isText
	}
	if !hasText {
		if s, ok := tool.StructuredText(res); ok {
			run = append(run, s)
		}
	}
	flush()
	return capText(parts, o.MaxChars)
}

func imageAllowed(mime string, allowed []string) bool {
	if allowed == nil {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(a, mime) {
			return true
		}
	}
	return false
}

// capString cuts s to max characters (0 = DefaultMaxChars, negative = no cap) and
// marks the cut as capText does.
func capString(s string, max int) string {
	if max == 0 {
		max = DefaultMaxChars
	}
	if max < 0 {
		return s
	}
	if total := utf8.RuneCountInString(s); total > max {
		return cutRunes(s, max) + cutMarker(total, max)
	}
	return s
}

// capText cuts the text parts to max characters in total (0 = DefaultMaxChars,
// negative = no cap) and marks the cut: "\n…[truncated 123,456 of 223,456 characters]".
// Images are kept.
func capText(parts []Part, max int) []Part {
	if max == 0 {
		max = DefaultMaxChars
	}
	if max < 0 {
		return parts
	}
	total := 0
	for _, p := range parts {
		if p.Type == PartText {
			total += utf8.RuneCountInString(p.Text)
		}
	}
	if total <= max {
		return parts
	}
	marker := cutMarker(total, max)
	out := make([]Part, 0, len(parts))
	budget, cut := max, false
	for _, p := range parts {
		if p.Type != PartText {
			out = append(out, p)
			continue
		}
		if cut {
			continue
		}
		n := utf8.RuneCountInString(p.Text)
		if n <= budget {
			budget -= n
			out = append(out, p)
			continue
		}
		p.Text = cutRunes(p.Text, budget) + marker
		out = append(out, p)
		cut = true
	}
	return out
}

// cutMarker follows text of total characters cut to max.
func cutMarker(total, max int) string {
	return fmt.Sprintf("\n…[truncated %s of %s characters]", thousands(total-max), thousands(total))
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	i := 0
	for n > 0 && i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n--
	}
	return s[:i]
}

// thousands formats n with comma separators: 223456 → "223,456".
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ResultOptions tunes ResultMessage.
type ResultOptions struct {
	// MaxChars caps the result's text (see NormalizeOptions.MaxChars): 0 means
	// DefaultMaxChars (100,000), negative means no cap.
	MaxChars int
}

// ResultMessage writes a tool result as the message (or content block) the provider
// expects after a tool call:
//
//	OpenAI           {"role":"tool","tool_call_id":id,"content":text}
//	OpenAIResponses  {"type":"function_call_output","call_id":id,"output":text}
//	Anthropic        {"type":"tool_result","tool_use_id":id,"content":[blocks],"is_error":true?}
//	MCP              the CallToolResult itself (callID and the cap are not used)
//
// The OpenAI tool message and function_call_output are text: images and audio become
// placeholders, and since neither has an error flag, an error result's text starts
// with "Error: " (unless it already starts with "error"). Anthropic's tool_result takes text and image blocks (JPEG, PNG, GIF,
// WebP as base64) and has is_error. An empty result is "(no output)".
func ResultMessage(p Provider, callID string, res *tool.Result, opts *ResultOptions) (json.RawMessage, error) {
	if err := p.valid(); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("format: nil tool result")
	}
	max := 0
	if opts != nil {
		max = opts.MaxChars
	}
	switch p {
	case OpenAI, OpenAIResponses:
		// Normalize without images is one part, tool.Text's text, capped.
		text := capString(tool.Text(res), max)
		if text == "" {
			text = noOutput
		}
		if res.IsError && !strings.HasPrefix(strings.ToLower(text), "error") {
			text = "Error: " + text
		}
		if p == OpenAI {
			return jsonenc.Marshal(openAIToolMessage{Role: "tool", ToolCallID: callID, Content: text})
		}
		return jsonenc.Marshal(functionCallOutput{Type: "function_call_output", CallID: callID, Output: text})
	case Anthropic:
		parts := Normalize(res, &NormalizeOptions{Images: true, ImageTypes: anthropicImageTypes, MaxChars: max})
		blocks := make([]any, 0, len(parts))
		for _, part := range parts {
			switch {
			case part.Type == PartImage:
				blocks = append(blocks, anthropicImage{Type: "image", Source: anthropicSource{Type: "base64", MediaType: part.MIMEType, Data: part.Data}})
			case part.Text != "": // Anthropic rejects empty text blocks
				blocks = append(blocks, anthropicText{Type: "text", Text: part.Text})
			}
		}
		if len(blocks) == 0 {
			blocks = append(blocks, anthropicText{Type: "text", Text: noOutput})
		}
		return jsonenc.Marshal(anthropicToolResult{Type: "tool_result", ToolUseID: callID, Content: blocks, IsError: res.IsError})
	}
	return jsonenc.Marshal(res)
}

type openAIToolMessage struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

type functionCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type anthropicToolResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   []any  `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

type anthropicText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anthropicImage struct {
	Type   string          `json:"type"`
	Source anthropicSource `json:"source"`
}

type anthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}
