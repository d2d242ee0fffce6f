package upstream

import (
	"context"
	"fmt"
	"iter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lists a server has; bits of conn.pending.
const (
	listTools uint32 = 1 << iota
	listResources
	listPrompts
)

// lists are what a server offers, as last listed.
type lists struct {
	tools     []*mcp.Tool
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
}

// fetchLists lists what the bits ask for (every page), keeping prev's other lists.
// Resources and prompts are listed only when the server has them. A failed
// tools/list is an error; failed resource or prompt lists are only logged (the
// server still serves its tools).
func (s *Supervisor) fetchLists(ctx context.Context, sess *mcp.ClientSession, bits uint32, prev *lists) (lists, error) {
	var l lists
	if prev != nil {
		l = *prev
	}
	caps := &mcp.ServerCapabilities{}
	if r := sess.InitializeResult(); r != nil && r.Capabilities != nil {
		caps = r.Capabilities
	}
	var err error
	if bits&listTools != 0 {
		if l.tools, err = collect(sess.Tools(ctx, nil)); err != nil {
			return l, fmt.Errorf("tools/list: %w", err)
		}
	}
	// soft logs a failed list, and fails the listing when the supervisor is closing:
	// its closing cancelled the request, which is nothing to warn about (a one-shot
	// command logged three warnings as it exited), and the attempt ends with it.
	soft := func(what string, err error) error {
		if s.ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		s.log.Warn(what+" failed; serving the server without them", "err", s.redact(err.Error()))
		return nil
	}
	if bits&listResources != 0 && caps.Resources != nil {
		if l.resources, err = collect(sess.Resources(ctx, nil)); err != nil {
			if err := soft("resources/list", err); err != nil {
				return l, err
			}
		}
		if l.templates, err = collect(sess.ResourceTemplates(ctx, nil)); err != nil {
			if err := soft("resources/templates/list", err); err != nil {
				return l, err
			}
		}
	}
	if bits&listPrompts != 0 && caps.Prompts != nil {
		if l.prompts, err = collect(sess.Prompts(ctx, nil)); err != nil {
			if err := soft("prompts/list", err); err != nil {
				return l, err
			}
		}
	}
	return l, nil
}

func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *Supervisor) ready(c *conn, l lists) {
	s.mu.Lock()
	s.cur, s.lists, s.info = c, l, c.sess.InitializeResult()
	s.mu.Unlock()
	s.setState(Ready, fmt.Sprintf("%d tools", len(l.tools)))
}

func (s *Supervisor) relist(c *conn, bits uint32) {
	ctx, cancel := context.WithTimeout(s.ctx, s.InitTimeout())
	defer cancel()
	s.mu.Lock()
	prev := s.lists
	s.mu.Unlock()
	l, err := s.fetchLists(ctx, c.sess, bits, &prev)
	if err != nil {
		if s.ctx.Err() == nil { // not cancelled by the closing
			s.log.Warn("re-listing after list_changed failed", "err", s.redact(err.Error()))
		}
		return
	}
	s.mu.Lock()
	s.lists = l
	s.mu.Unlock()
	e := Event{Server: s.cfg.Name, State: Ready}
	if bits&listTools != 0 {
		e.ToolsChanged = true
		s.log.Info("tools changed", "tools", len(l.tools))
	}
	if bits&listResources != 0 {
		e.ResourcesChanged = true
		s.log.Info("resources changed", "resources", len(l.resources), "templates", len(l.templates))
	}
	if bits&listPrompts != 0 {
		e.PromptsChanged = true
		s.log.Info("prompts changed", "prompts", len(l.prompts))
	}
	s.emit(e)
}
