package config

import (
	"encoding/json"

	"github.com/tailscale/hujson"
)

// ReplaceServer returns data with the entry of server name replaced by entry (a
// JSON object, written as given) in its place: the name, the comments around it
// and the rest of the file keep their bytes. A *NotFoundError when the file has no
// such server.
func ReplaceServer(data []byte, name string, entry json.RawMessage) ([]byte, error) {
	val, err := entryValue(entry, "the server entry")
	if err != nil {
		return nil, err
	}
	root, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	obj, i, ok := findServer(&root, name)
	if !ok {
		return nil, &NotFoundError{Name: name, Names: serverNames(&root)}
	}
	unit := indentUnit(root.Value.(*hujson.Object))
	ind, ok := lineIndent(obj.Members[i].Name.BeforeExtra)
	if !ok {
		ind = unit
	}
	layout(&val, ind, unit)
	obj.Members[i].Value.Value = val.Value
	return pack(root), nil
}
