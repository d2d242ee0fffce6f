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
	return editServer(data, name, entry, "the server entry", func(target *hujson.Value, val hujson.Value, ind, unit string) {
		layout(&val, ind, unit)
		target.Value = val.Value
	})
}

// editServer runs edit on the entry of server name in data, with in (a JSON object,
// what names it in errors) as a value, the entry's indent and the file's indent
// unit, and returns the file edited. A *NotFoundError when the file has no such
// server.
func editServer(data []byte, name string, in json.RawMessage, what string, edit func(target *hujson.Value, val hujson.Value, ind, unit string)) ([]byte, error) {
	val, err := entryValue(in, what)
	if err != nil {
		return nil, err
	}
	root, obj, i, err := locateServer(data, name)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(root.Value.(*hujson.Object))
	ind, ok := lineIndent(obj.Members[i].Name.BeforeExtra)
	if !ok {
		ind = unit
	}
	edit(&obj.Members[i].Value, val, ind, unit)
	return pack(root), nil
}

// locateServer parses data and finds the entry of server name in it: the document,
// the object that holds the entry and its index there. A *NotFoundError when the
// file has no such server.
func locateServer(data []byte, name string) (hujson.Value, *hujson.Object, int, error) {
	root, err := parseDoc(data)
	if err != nil {
		return root, nil, 0, err
	}
	obj, i, ok := findServer(&root, name)
	if !ok {
		return root, nil, 0, &NotFoundError{Name: name, Names: serverNames(&root)}
	}
	return root, obj, i, nil
}
