package fakellm

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
)

// EmbeddingsServer is a fake OpenAI-compatible embeddings endpoint on loopback:
// POST /v1/embeddings as OpenAI documents it, so that the official SDK's client
// parses what it answers.
//
//   - request: {"input": "text" or ["text", ...], "model", "encoding_format"?
//     ("float" or "base64"), "dimensions"?};
//   - response: {"object": "list", "data": [{"object": "embedding", "index": i,
//     "embedding": [...] or a base64 string of little-endian float32}], "model",
//     "usage": {"prompt_tokens", "total_tokens"}};
//   - errors as OpenAI words them: {"error": {"message", "type", "param", "code"}}.
//
// The vectors are [Embed]'s: deterministic, and close for texts that share words,
// parts of words or a concept of a small built-in thesaurus. The fake is not a
// model: rankings measured with it say nothing about a real model's quality.
type EmbeddingsServer struct {
	// URL is the base URL a client is given: http://127.0.0.1:PORT/v1 (the SDK
	// appends /embeddings).
	URL  string
	opts EmbeddingsOptions
	http *http.Server
	done chan struct{}
	// handlers counts requests being answered: http.Server.Close does not wait for them.
	handlers sync.WaitGroup

	mu   sync.Mutex
	reqs []EmbeddingsRequest
}

// EmbeddingsOptions configures an EmbeddingsServer; the zero value answers every
// well-formed request with DefaultDimensions-long vectors.
type EmbeddingsOptions struct {
	// Dimensions is the vectors' length when a request asks for none; 0 means
	// DefaultDimensions.
	Dimensions int
	// Fail, when set, is asked about each well-formed request: a status other than 0
	// or 200 answers it with that HTTP status and OpenAI's error body carrying
	// message, instead of the embeddings.
	Fail func(EmbeddingsRequest) (status int, message string)
	// Delay waits this long before answering (bounded by the request's context).
	Delay time.Duration
}

// DefaultDimensions is the length of the fake's vectors.
const DefaultDimensions = 256

// EmbeddingsRequest is one request the fake received.
type EmbeddingsRequest struct {
	Model          string
	Input          []string // a string input is one element
	EncodingFormat string   // as sent; "" when left out
	Dimensions     int
	// Header is the HTTP request's header (Authorization included: tests check what
	// was sent, so keep them out of logs).
	Header http.Header
}

// NewEmbeddings starts an EmbeddingsServer on addr ("127.0.0.1:0" for a free port).
// Close stops it.
func NewEmbeddings(addr string, opts *EmbeddingsOptions) (*EmbeddingsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &EmbeddingsServer{URL: "http://" + ln.Addr().String() + "/v1", done: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Dimensions <= 0 {
		s.opts.Dimensions = DefaultDimensions
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		openAIError(w, http.StatusNotFound, fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
	})
	s.http = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.handlers.Add(1)
		defer s.handlers.Done()
		mux.ServeHTTP(w, r)
	})}
	go func() {
		defer close(s.done)
		s.http.Serve(ln)
	}()
	return s, nil
}

// StartEmbeddings starts an EmbeddingsServer on a free loopback port and closes it
// when the test ends.
func StartEmbeddings(tb TB, opts *EmbeddingsOptions) *EmbeddingsServer {
	tb.Helper()
	s, err := NewEmbeddings("127.0.0.1:0", opts)
	if err != nil {
		tb.Fatalf("fakellm: start the embeddings server: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// Requests returns the well-formed requests received so far, in order.
func (s *EmbeddingsServer) Requests() []EmbeddingsRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EmbeddingsRequest(nil), s.reqs...)
}

// Inputs returns every text the server was asked to embed, in order, failed
// requests included: what a client's cache saved shows here.
func (s *EmbeddingsServer) Inputs() []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, r.Input...)
	}
	return out
}

// Close stops the server, cutting requests under way, and returns once every
// handler and the serving goroutine have.
func (s *EmbeddingsServer) Close() error {
	err := s.http.Close()
	<-s.done
	s.handlers.Wait()
	return err
}

func (s *EmbeddingsServer) embeddings(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Input          json.RawMessage `json:"input"`
		Model          string          `json:"model"`
		EncodingFormat *string         `json:"encoding_format"`
		Dimensions     *int            `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		openAIError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if body.Model == "" {
		openAIError(w, http.StatusBadRequest, "you must provide a model parameter")
		return
	}
	req := EmbeddingsRequest{Model: body.Model, Header: r.Header.Clone(), Dimensions: s.opts.Dimensions}
	var one string
	switch {
	case json.Unmarshal(body.Input, &one) == nil:
		req.Input = []string{one}
	case json.Unmarshal(body.Input, &req.Input) == nil && len(req.Input) > 0:
	default:
		// Token arrays are valid at OpenAI; the fake embeds text only.
		openAIError(w, http.StatusBadRequest, "'$.input' is invalid: want a string or an array of strings")
		return
	}
	for _, in := range req.Input {
		if in == "" {
			openAIError(w, http.StatusBadRequest, "'$.input' is invalid: an input is empty")
			return
		}
	}
	if body.EncodingFormat != nil {
		req.EncodingFormat = *body.EncodingFormat
		if req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
			openAIError(w, http.StatusBadRequest, fmt.Sprintf("'%s' is not one of ['float', 'base64'] - 'encoding_format'", req.EncodingFormat))
			return
		}
	}
	if body.Dimensions != nil {
		if *body.Dimensions < 1 {
			openAIError(w, http.StatusBadRequest, "'$.dimensions' is invalid: want at least 1")
			return
		}
		req.Dimensions = *body.Dimensions
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if s.opts.Delay > 0 {
		select {
		case <-time.After(s.opts.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if s.opts.Fail != nil {
		if status, msg := s.opts.Fail(req); status != 0 && status != http.StatusOK {
			openAIError(w, status, msg)
			return
		}
	}
	data := make([]map[string]any, len(req.Input))
	tokens := 0
	for i, in := range req.Input {
		v := Embed(in, req.Dimensions)
		var emb any = v
		if req.EncodingFormat == "base64" {
			b := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(b)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": emb}
		tokens += len(strings.Fields(in))
	}
	openAIJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// thesaurus is what the fake "knows" of meaning: each word of a group stands for the
// group's first. It lets tests show a ranking helped by meaning where the words
// differ; it is not a claim about any real model.
var thesaurus = func() map[string]string {
	m := map[string]string{}
	for _, g := range []string{
		"car automobile vehicle auto",
		"buy purchase order",
		"rent hire lease rental",
		"weather forecast rain sunny",
		"translate translation language",
		"money currency cash",
		"song music track tune",
		"movie film cinema",
		"doctor physician clinic",
		"speak say pronounce voice speech",
		"ticket issue bug",
		"time clock hour",
		"note memo jot",
	} {
		ws := strings.Fields(g)
		for _, w := range ws {
			m[w] = ws[0]
		}
	}
	return m
}()

var embedStop = map[string]bool{"a": true, "an": true, "the": true, "to": true, "of": true, "for": true, "in": true,
	"and": true, "or": true, "is": true, "it": true, "on": true, "with": true, "me": true, "my": true, "i": true}

// Embed is the fake's vector for text, of length dims: a hashed bag of its words
// (weight 1; a thesaurus word as its group's concept, weight 1 too) and of their
// character trigrams (weight 0.3 each, so that "email" and "mail" meet), signed by
// the hash and normalized to length 1.
func Embed(text string, dims int) []float32 {
	v := make([]float64, dims)
	add := func(feature string, w float64) {
		h := fnv.New64a()
		h.Write([]byte(feature))
		x := h.Sum64()
		if x>>63 == 1 {
			w = -w
		}
		v[int(x%uint64(dims))] += w
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if embedStop[w] {
			continue
		}
		add("w:"+w, 1)
		if c, ok := thesaurus[strings.TrimSuffix(w, "s")]; ok {
			add("c:"+c, 1)
		}
		p := " " + w + " "
		for i := 0; i+3 <= len(p); i++ {
			add("t:"+p[i:i+3], 0.3)
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
