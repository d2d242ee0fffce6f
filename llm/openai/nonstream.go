package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/openai/openai-go/v3/option"
)

// maxJSONReply bounds the body read when a server answers a streamed request with
// one JSON object.
const maxJSONReply = 64 << 20

// jsonAsStream lets Generate read a server that ignores "stream": true and answers
// with one "chat.completion" object (some proxies and small servers do): the object
// becomes a stream of one chunk carrying the whole message. Any other JSON becomes
// an error event, so that the stream fails with the server's words instead of
// ending empty.
func jsonAsStream(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode != http.StatusOK {
		return res, err
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
		return res, nil
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxJSONReply))
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	event := completionAsChunk(body)
	res.Body = io.NopCloser(bytes.NewReader([]byte("data: " + string(event) + "\n\ndata: [DONE]\n\n")))
	res.ContentLength = -1
	res.Header = res.Header.Clone()
	res.Header.Set("Content-Type", "text/event-stream")
	res.Header.Del("Content-Length")
	return res, nil
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
			return body // {"error": …} with status 200: the stream reports it
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
