package format

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
)

var png = []byte("\x89PNG\r\n\x1a\nfake")

func TestResultMessage(t *testing.T) {
	png64 := base64.StdEncoding.EncodeToString(png)
	tests := []struct {
		name                       string
		res                        *tool.Result
		openai, responses, anthrop string // want: OpenAI content / Responses output (text), Anthropic content blocks
		anthropicError             bool
	}{
		{"text", &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "line 1"}, &mcp.TextContent{Text: "line 2"}}},
			"line 1\nline 2", "line 1\nline 2", `[{"type":"text","text":"line 1\nline 2"}]`, false},
		{"image", &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "Here:"}, &mcp.ImageContent{MIMEType: "image/png", Data: png}, &mcp.TextContent{Text: "done"}}},
			"Here:\n[Image: image/png]\ndone", "Here:\n[Image: image/png]\ndone",
			`[{"type":"text","text":"Here:"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png64 + `"}},{"type":"text","text":"done"}]`, false},
		{"unsupported image type", &tool.Result{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/svg+xml", Data: []byte("<svg/>")}}},
			"[Image: image/svg+xml]", "[Image: image/svg+xml]", `[{"type":"text","text":"[Image: image/svg+xml]"}]`, false},
		{"audio", &tool.Result{Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")}}},
			"[Audio: audio/wav]", "[Audio: audio/wav]", `[{"type":"text","text":"[Audio: audio/wav]"}]`, false},
		{"text resource", &tool.Result{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"}}}},
			"[Resource: file:///a.txt]\nhello", "[Resource: file:///a.txt]\nhello", `[{"type":"text","text":"[Resource: file:///a.txt]\nhello"}]`, false},
		{"blob resource", &tool.Result{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.bin", MIMEType: "application/pdf", Blob: make([]byte, 1234)}}}},
			"[Resource: file:///a.bin]\n(binary, 1234 bytes, application/pdf)", "[Resource: file:///a.bin]\n(binary, 1234 bytes, application/pdf)",
			`[{"type":"text","text":"[Resource: file:///a.bin]\n(binary, 1234 bytes, application/pdf)"}]`, false},
		{"resource link", &tool.Result{Content: []mcp.Content{&mcp.ResourceLink{URI: "https://x/y", Name: "y", Title: "Why"}}},
			"[Resource link: https://x/y]", "[Resource link: https://x/y]", `[{"type":"text","text":"[Resource link: https://x/y]"}]`, false},
		{"structured only", &tool.Result{StructuredContent: map[string]any{"temp": 21.5, "city": "<Paris>"}},
			`{"city":"<Paris>","temp":21.5}`, `{"city":"<Paris>","temp":21.5}`, `[{"type":"text","text":"{\"city\":\"<Paris>\",\"temp\":21.5}"}]`, false},
		{"structured with text", &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "21.5 C"}}, StructuredContent: map[string]any{"temp": 21.5}},
			"21.5 C", "21.5 C", `[{"type":"text","text":"21.5 C"}]`, false},
		{"error", &tool.Result{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "city not found"}}},
			"Error: city not found", "Error: city not found", `[{"type":"text","text":"city not found"}]`, true},
		{"error already prefixed", tool.ErrorResult("Error: boom"),
			"Error: boom", "Error: boom", `[{"type":"text","text":"Error: boom"}]`, true},
		{"empty", &tool.Result{}, "(no output)", "(no output)", `[{"type":"text","text":"(no output)"}]`, false},
		{"empty text block", &tool.Result{Content: []mcp.Content{&mcp.TextContent{}}}, "(no output)", "(no output)", `[{"type":"text","text":"(no output)"}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResultMessage(OpenAI, "call_1", tt.res, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(map[string]any{"role": "tool", "tool_call_id": "call_1", "content": tt.openai})
			jsonEqual(t, got, string(want))

			got, err = ResultMessage(OpenAIResponses, "call_1", tt.res, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ = json.Marshal(map[string]any{"type": "function_call_output", "call_id": "call_1", "output": tt.responses})
			jsonEqual(t, got, string(want))

			got, err = ResultMessage(Anthropic, "toolu_1", tt.res, nil)
			if err != nil {
				t.Fatal(err)
			}
			isErr := ""
			if tt.anthropicError {
				isErr = `,"is_error":true`
			}
			jsonEqual(t, got, `{"type":"tool_result","tool_use_id":"toolu_1","content":`+tt.anthrop+isErr+`}`)
		})
	}
}

func TestResultMessageMCPAndErrors(t *testing.T) {
	res := &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}, IsError: true}
	got, err := ResultMessage(MCP, "ignored", res, nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, got, `{"content":[{"type":"text","text":"hi"}],"isError":true}`)
	if _, err := ResultMessage(OpenAI, "c", nil, nil); err == nil {
		t.Error("nil result accepted")
	}
	if _, err := ResultMessage(Provider("x"), "c", res, nil); err == nil {
		t.Error("unknown provider accepted")
	}
}

// TestNormalizeMatchesToolText: without images and blobs, Normalize is tool.Text (one
// normaliser, as docs/architecture.md says).
func TestNormalizeMatchesToolText(t *testing.T) {
	res := &tool.Result{Content: []mcp.Content{
		&mcp.TextContent{Text: "a"}, &mcp.ImageContent{MIMEType: "image/png", Data: png},
		&mcp.AudioContent{MIMEType: "audio/mpeg"}, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "u", Text: "t"}},
		&mcp.EmbeddedResource{}, &mcp.ResourceLink{URI: "l"}, &mcp.TextContent{Text: ""},
	}}
	parts := Normalize(res, nil)
	if len(parts) != 1 || parts[0].Type != PartText || parts[0].Text != tool.Text(res) {
		t.Errorf("Normalize = %+v, tool.Text = %q", parts, tool.Text(res))
	}
	structured := &tool.Result{StructuredContent: []any{1, "x"}}
	if parts := Normalize(structured, nil); len(parts) != 1 || parts[0].Text != tool.Text(structured) {
		t.Errorf("structured: %+v vs %q", parts, tool.Text(structured))
	}
	if Normalize(nil, nil) != nil {
		t.Error("nil result has parts")
	}
}

func TestNormalizeImages(t *testing.T) {
	res := &tool.Result{Content: []mcp.Content{
		&mcp.ImageContent{MIMEType: "image/png", Data: png}, &mcp.TextContent{Text: "x"}, &mcp.TextContent{Text: "y"},
		&mcp.ImageContent{MIMEType: "image/tiff", Data: png}, &mcp.ImageContent{MIMEType: "image/png"},
	}}
	parts := Normalize(res, &NormalizeOptions{Images: true, ImageTypes: anthropicImageTypes})
	want := []Part{
		{Type: PartImage, MIMEType: "image/png", Data: base64.StdEncoding.EncodeToString(png)},
		{Type: PartText, Text: "x\ny\n[Image: image/tiff]\n[Image: image/png]"}, // unsupported type, no data
	}
	if fmt.Sprint(parts) != fmt.Sprint(want) {
		t.Errorf("got %+v\nwant %+v", parts, want)
	}
	if parts := Normalize(res, &NormalizeOptions{Images: true}); len(parts) != 4 || parts[2].MIMEType != "image/tiff" || parts[3].Text != "[Image: image/png]" {
		t.Errorf("any image type: %+v", parts)
	}
}

func TestSizeCap(t *testing.T) {
	big := strings.Repeat("x", 250_000)
	tests := []struct {
		name     string
		text     string
		max      int
		wantKept int    // runes kept before the marker; -1 = untouched
		marker   string // expected marker
	}{
		{"250k capped at default", big, 0, 100_000, "\n…[truncated 150,000 of 250,000 characters]"},
		{"at the cap untouched", strings.Repeat("y", 100_000), 0, -1, ""},
		{"under the cap untouched", "short", 0, -1, ""},
		{"custom cap", big, 1000, 1000, "\n…[truncated 249,000 of 250,000 characters]"},
		{"no cap", big, -1, -1, ""},
		{"multibyte rune boundary", strings.Repeat("é日🙂", 10), 7, 7, "\n…[truncated 23 of 30 characters]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: tt.text}}}
			for _, p := range []Provider{OpenAI, OpenAIResponses, Anthropic} {
				msg, err := ResultMessage(p, "c", res, &ResultOptions{MaxChars: tt.max})
				if err != nil {
					t.Fatal(err)
				}
				var text string
				switch p {
				case OpenAI:
					text = field(t, msg, "content").(string)
				case OpenAIResponses:
					text = field(t, msg, "output").(string)
				case Anthropic:
					text = field(t, msg, "content").([]any)[0].(map[string]any)["text"].(string)
				}
				if tt.wantKept < 0 {
					if text != tt.text {
						t.Errorf("%s: text changed (%d runes)", p, utf8.RuneCountInString(text))
					}
					continue
				}
				if !utf8.ValidString(text) {
					t.Fatalf("%s: cut inside a rune", p)
				}
				kept, ok := strings.CutSuffix(text, tt.marker)
				if !ok {
					t.Fatalf("%s: no marker %q at the end of ...%q", p, tt.marker, text[max(0, len(text)-60):])
				}
				if n := utf8.RuneCountInString(kept); n != tt.wantKept || !strings.HasPrefix(tt.text, kept) {
					t.Errorf("%s: kept %d runes (prefix %v), want %d", p, n, strings.HasPrefix(tt.text, kept), tt.wantKept)
				}
			}
		})
	}
}

func TestSizeCapAcrossParts(t *testing.T) {
	res := &tool.Result{Content: []mcp.Content{
		&mcp.TextContent{Text: "abcdef"}, &mcp.ImageContent{MIMEType: "image/png", Data: png}, &mcp.TextContent{Text: "ghijkl"}, &mcp.TextContent{Text: "mn"},
	}}
	// Text parts: "abcdef" (6) and "ghijkl\nmn" (9): 15 characters, cap 8.
	parts := Normalize(res, &NormalizeOptions{Images: true, MaxChars: 8})
	if len(parts) != 3 || parts[0].Text != "abcdef" || parts[1].Type != PartImage ||
		parts[2].Text != "gh\n…[truncated 7 of 15 characters]" {
		t.Errorf("got %+v", parts)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 123456: "123,456", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
