package fakellm

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// anthropicCountTokens answers POST /v1/messages/count_tokens as the API does
// (https://docs.anthropic.com/en/api/messages-count-tokens): {"input_tokens": N} for
// a request that would be a valid Messages request but for max_tokens, which it must
// not carry (nor stream), N being the same estimate as a reply's input tokens (a
// quarter of the body's bytes, plus one). It asks the script nothing and is not
// among Requests: it answers no turn.
func (s *Server) anthropicCountTokens(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	if _, err := body.ReadFrom(r.Body); err != nil {
		anthropicError(w, http.StatusBadRequest, "", "could not read the request body: "+err.Error())
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body.Bytes(), &fields); err != nil {
		anthropicError(w, http.StatusBadRequest, "", "There was an error parsing the body: "+err.Error())
		return
	}
	for _, f := range []string{"max_tokens", "stream", "temperature"} {
		if _, ok := fields[f]; ok {
			anthropicError(w, http.StatusBadRequest, "", f+": Extra inputs are not permitted")
			return
		}
	}
	// Checked as a Messages request is, with the max_tokens it does not take.
	fields["max_tokens"] = json.RawMessage("1")
	asMessage, _ := json.Marshal(fields)
	if _, invalid := anthropicDecode(r, asMessage); invalid != "" {
		anthropicError(w, http.StatusBadRequest, "", invalid)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", anthropicID("req_fake"))
	json.NewEncoder(w).Encode(map[string]int64{"input_tokens": int64(body.Len()/4 + 1)})
}
