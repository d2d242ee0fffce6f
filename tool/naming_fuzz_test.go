package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

// FuzzAssignNames: whatever names servers send (any bytes, any length, any
// prefix, any name a tool had before), every policy that succeeds gives each
// distinct tool one name that matches NamePattern and no other tool's, the same for
// any input order; a tool keeps the name it had when the policy would give it that
// name (under "auto": its plain or its prefixed name) and no other tool had it;
// "never" fails only with a CollisionError that involves two tools or more.
func FuzzAssignNames(f *testing.F) {
	f.Add("github\t\tcreate_issue\ngitlab\tgithub\tcreate_issue\nfs\tfiles\tread.file\nfs\t\tread_file")
	f.Add("a__b\t\tc\na\t\tb__c\n日本\t\t🚀 launch\nx\t\t" + strings.Repeat("long", 30))
	f.Add("s\t\ta.b\ns\t\ta_b\ns\t\ta/b\ns\t\ta b\ns\t\t")
	// memory keeps create_entities as a newcomer joins; b keeps its prefix after its
	// collision went; c__x is another's name.
	f.Add("memory\t\tcreate_entities\tcreate_entities\nkg\t\tcreate_entities\nb\t\tx\tb__x\nc\t\tx\tc__x\nq\t\tc__x")
	f.Fuzz(func(t *testing.T, spec string) {
		var tools []NameInput
		keys := map[Key]bool{}
		ranks := map[string]int{} // a server's place: its first line's, from 1
		for i, line := range strings.Split(spec, "\n") {
			if i >= 64 {
				break
			}
			p := strings.SplitN(line, "\t", 4)
			if len(p) < 3 {
				continue
			}
			if ranks[p[0]] == 0 {
				ranks[p[0]] = len(ranks) + 1
			}
			in := NameInput{Key: Key{p[0], p[2]}, Prefix: p[1], Explicit: p[1] != "", Rank: ranks[p[0]]}
			if len(p) == 4 {
				in.Keep = p[3]
			}
			if keys[in.Key] {
				continue // a server lists each of its tools once
			}
			keys[in.Key] = true
			tools = append(tools, in)
		}
		for _, policy := range []Naming{NamingAuto, NamingAlways, NamingNever} {
			got, err := AssignNames(policy, tools)
			if err != nil {
				var ce *CollisionError
				if policy != NamingNever || !errors.As(err, &ce) || len(ce.Groups) == 0 {
					t.Fatalf("%s: %v", policy, err)
				}
				involved := 0
				for _, in := range tools {
					if ce.Involves(in) {
						involved++
					}
				}
				if involved < 2 {
					t.Fatalf("never: %d tools involved in %v, want at least two", involved, err)
				}
				continue
			}
			if len(got) != len(keys) {
				t.Fatalf("%s: %d names for %d tools", policy, len(got), len(keys))
			}
			seen := map[string]Key{}
			for k, n := range got {
				if !NamePattern.MatchString(n) {
					t.Fatalf("%s: %v named %q, which does not match %s", policy, k, n, NamePattern)
				}
				if o, dup := seen[n]; dup {
					t.Fatalf("%s: %q names both %v and %v", policy, n, o, k)
				}
				seen[n] = k
			}
			keeps := map[string]int{}
			for _, in := range tools {
				keeps[in.Keep]++
			}
			for _, in := range tools {
				if in.Keep == "" || keeps[in.Keep] > 1 {
					continue
				}
				plain := sanitize(in.Tool, MaxNameLen)
				pre, _ := prefixed(in)
				var may bool // the policy may give the tool its Keep
				switch policy {
				case NamingAuto:
					may = in.Keep == plain || in.Keep == pre
				case NamingAlways:
					may = in.Keep == pre
				case NamingNever:
					continue // who gets a prefix follows the collisions alone
				}
				if may && got[in.Key] != in.Keep {
					t.Fatalf("%s: %v had %q, which the policy gives it, and got %q", policy, in.Key, in.Keep, got[in.Key])
				}
			}
			rev := slices.Clone(tools)
			slices.Reverse(rev)
			again, err := AssignNames(policy, rev)
			if err != nil || !maps.Equal(got, again) {
				t.Fatalf("%s: the reversed input gives %v (%v), want %v", policy, again, err, got)
			}
		}
	})
}

// FuzzCleanSchema: whatever a server sends as an input schema, CleanSchema gives
// an object schema with properties, and cleaning it again changes nothing.
func FuzzCleanSchema(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	f.Add(`{"properties":{"b":{}}}`)
	f.Add(`{"type":"string"}`)
	f.Add(`[1,2]`)
	f.Add(`{"type":"object","description":"<b> & more","x":1e400}`)
	f.Fuzz(func(t *testing.T, raw string) {
		out := CleanSchema(json.RawMessage(raw))
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%s gave %s, not a JSON object: %v", raw, out, err)
		}
		if string(m["type"]) != `"object"` || m["properties"] == nil {
			t.Fatalf("%s gave %s: not an object schema with properties", raw, out)
		}
		if again := CleanSchema(out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %s, then %s", out, again)
		}
	})
}
