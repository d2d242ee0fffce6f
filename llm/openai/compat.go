package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/option"
)

// maxJSONReply bounds the body read when a server answers a streamed request with
// one JSON object.
const maxJSONReply = 64 << 20

// compatible reads answers from servers that are not OpenAI as OpenAI's, before the
// SDK sees them:
//
//   - An error status whose body is not OpenAI's {"error": {"message", …}} gets one
//     made from what the body says (vLLM's {"object": "error", "message"}, FastAPI's
//     {"detail"}, {"error": "text"}, plain text). The SDK fails to decode
//     {"error": "text"} at all and would lose the status.
//   - A server that ignores "stream": true and answers with one "chat.completion"
//     object (some proxies and small servers do) is read as a stream of one chunk
//     carrying the whole message. Any other JSON becomes an error event, so that the
//     stream fails with the server's words instead of ending empty.
func compatible(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil {
		return res, err
	}
	switch {
	case res.StatusCode >= 400:
		body, err := io.ReadAll(io.LimitReader(res.Body, maxJSONReply))
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		replaceBody(res, "", errorBody(body))
	case res.StatusCode == http.StatusOK:
		if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
			return res, nil
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, maxJSONReply))
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		event := completionAsChunk(body)
		replaceBody(res, "text/event-stream", []byte("data: "+string(event)+"\n\ndata: [DONE]\n\n"))
	}
	return res, nil
}

func replaceBody(res *http.Response, contentType string, body []byte) {
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	res.Header = res.Header.Clone()
	res.Header.Del("Content-Length")
	if contentType != "" {
		res.Header.Set("Content-Type", contentType)
	}
}

// errorBody returns body when it is OpenAI's error object, else one made from it.
func errorBody(body []byte) []byte {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && bytes.HasPrefix(bytes.TrimSpace(v.Error), []byte("{")) {
		return body
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": bodyMessage(body)}})
	return b
}

type jsonCompletion struct {
	ID      string          `json:"id"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Usage   json.RawMessage `json:"usage,omitempty"`
	Error   json.RawMessage `json:"error"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content   *string `json:"content"`
			Refusal   *string `json:"refusal"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

// completionAsChunk turns a chat.completion into the equivalent chunk, or anything
// else into an error event.
func completionAsChunk(body []byte) []byte {
	var c jsonCompletion
	if err := json.Unmarshal(body, &c); err != nil || c.Choices == nil {
		if err == nil && len(c.Error) > 0 && string(c.Error) != "null" {
			return errorBody(body) // {"error": …} with status 200: the stream reports it
		}
		return errorEvent(fmt.Sprintf("the server answered a streamed request with JSON that is not a chat completion: %.200s", body))
	}
	type call struct {
		Index    int    `json:"index"`
		ID       string `json:"id,omitempty"`
		Type     string `json:"type"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments,omitempty"`
		} `json:"function"`
	}
	type delta struct {
		Role      string  `json:"role"`
		Content   *string `json:"content,omitempty"`
		Refusal   *string `json:"refusal,omitempty"`
		ToolCalls []call  `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	chunk := struct {
		ID      string          `json:"id"`
		Object  string          `json:"object"`
		Created int64           `json:"created"`
		Model   string          `json:"model"`
		Choices []choice        `json:"choices"`
		Usage   json.RawMessage `json:"usage,omitempty"`
	}{ID: c.ID, Object: "chat.completion.chunk", Created: c.Created, Model: c.Model, Usage: c.Usage, Choices: []choice{}}
	for _, ch := range c.Choices {
		d := delta{Role: "assistant", Content: ch.Message.Content, Refusal: ch.Message.Refusal}
		for i, tc := range ch.Message.ToolCalls {
			x := call{Index: i, ID: tc.ID, Type: "function"}
			x.Function.Name, x.Function.Arguments = tc.Function.Name, tc.Function.Arguments
			d.ToolCalls = append(d.ToolCalls, x)
		}
		chunk.Choices = append(chunk.Choices, choice{Index: ch.Index, Delta: d, FinishReason: ch.FinishReason})
	}
	b, err := json.Marshal(chunk)
	if err != nil {
		return errorEvent("the server's chat completion could not be read: " + err.Error())
	}
	return b
}

func errorEvent(message string) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": message}})
	return b
}

// bodyMessage is what an error body says: vLLM's {"object": "error", "message"}, a
// {"detail"} from FastAPI servers, {"error": "text"}, or the text itself, cut short.
func bodyMessage(b []byte) string {
	var v struct {
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &v) == nil {
		var s string
		switch {
		case v.Message != "":
			return v.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return s
		case len(v.Detail) > 0:
			return string(v.Detail)
		}
	}
	text := strings.TrimSpace(string(b))
	if len(text) > 300 {
		text = strings.ToValidUTF8(text[:300], "") + " …"
	}
	return text
}
