package gortexproto

// Decoding that agrees with the Rust types on what a message says: member names match exactly
// (encoding/json alone matches them case-insensitively), required members must be present,
// closed objects reject undeclared members, and a document whose objects repeat a member name
// (exactly or up to case) is refused by the strict entry point, Unmarshal. The daemon-owned
// types are left to encoding/json, as the daemon's own structs are; Unmarshal reads their exact
// names.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Unmarshal is the strict way to decode one document into v (a pointer to a generated type):
// it rejects repeated member names (CheckMemberNames), validates the document itself against
// v's schema type (so that a null or a missing member which encoding/json would quietly turn
// into a zero value is caught), and then decodes it. A document Unmarshal accepts is one that
// is valid against the schema; for any other v it is json.Unmarshal after CheckMemberNames.
// A daemon-owned type (BridgeEvent, BridgeDecision), which json.Unmarshal decodes with names
// matched up to case, is decoded here from its exactly named members, as Rust and TypeScript
// read it.
func Unmarshal(data []byte, v any) error {
	if err := CheckMemberNames(data); err != nil {
		return err
	}
	if typed, ok := v.(schemaTyped); ok {
		file, def := typed.schemaType()
		if err := ValidateJSON(data, file, def); err != nil {
			return err
		}
	}
	if exact, ok := v.(exactDecoder); ok {
		_, err := decodeObject(data, v, exact.exactShape())
		return err
	}
	return json.Unmarshal(data, v)
}

// exactDecoder is implemented by the daemon-owned types, which have no UnmarshalJSON of their
// own: the shape Unmarshal decodes them with.
type exactDecoder interface {
	exactShape() *objectShape
}

// schemaTyped is implemented by every generated type: the schema file (by stem) and the
// `$defs` name it was generated from.
type schemaTyped interface {
	schemaType() (file, def string)
}

// DuplicateMemberError reports an object that has two members whose names are equal, or equal
// up to case. encoding/json would silently let one of them win, and which one differs from
// other decoders, so the two sides of a connection could read different messages.
type DuplicateMemberError struct {
	// Pointer is the JSON pointer (RFC 6901) of the object.
	Pointer string
	// First and Second are the two member names, in document order.
	First, Second string
}

func (e *DuplicateMemberError) Error() string {
	if e.First == e.Second {
		return fmt.Sprintf("gortexproto: object at %q repeats member %q", e.Pointer, e.First)
	}
	return fmt.Sprintf("gortexproto: object at %q has members %q and %q, which differ only in case",
		e.Pointer, e.First, e.Second)
}

// CheckMemberNames returns a *DuplicateMemberError for the first object of data that repeats a
// member name exactly or up to case (with the case folding encoding/json uses), and nil when
// there is none. Syntax errors are returned as they are.
func CheckMemberNames(data []byte) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	type frame struct {
		pointer string
		object  bool
		names   map[string]string // folded name -> name as written
		wantKey bool
		index   int
		member  string
	}
	var stack []*frame
	// childPointer is the pointer of the value about to start inside top.
	childPointer := func(top *frame) string {
		if top == nil {
			return ""
		}
		if top.object {
			return top.pointer + "/" + escapePointerToken(top.member)
		}
		return top.pointer + "/" + strconv.Itoa(top.index)
	}
	// valueDone moves the enclosing container past one complete value.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	for {
		token, err := decoder.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if token == json.Delim('}') {
				stack = stack[:len(stack)-1]
				valueDone()
				continue
			}
			name, _ := token.(string)
			folded := foldName(name)
			if first, seen := top.names[folded]; seen {
				return &DuplicateMemberError{Pointer: top.pointer, First: first, Second: name}
			}
			top.names[folded] = name
			top.member = name
			top.wantKey = false
			continue
		}
		switch token {
		case json.Delim('{'):
			stack = append(stack, &frame{pointer: childPointer(top), object: true, names: map[string]string{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{pointer: childPointer(top)})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

// foldName maps a name to one representative of its case-folding class (the smallest rune of
// each rune's simple folding orbit), so that names equal under strings.EqualFold, such as
// "kind" and "\u212aind" (Kelvin sign), fold to the same string.
func foldName(name string) string {
	var folded strings.Builder
	for _, r := range name {
		smallest := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < smallest {
				smallest = f
			}
		}
		folded.WriteRune(smallest)
	}
	return folded.String()
}

func escapePointerToken(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// objectShape is what a generated UnmarshalJSON needs to know about its object.
type objectShape struct {
	typeName string
	declared []string
	required []string
	// closed objects (additionalProperties: false) reject undeclared members, as the Rust
	// types do (deny_unknown_fields).
	closed bool
	// keep returns undeclared members for the Extra field; otherwise they are dropped.
	keep bool
}

func (s *objectShape) isDeclared(name string) bool {
	for _, declared := range s.declared {
		if declared == name {
			return true
		}
	}
	return false
}

// decodeObject decodes the JSON object data into target (a pointer to the plain struct behind
// a generated type) using only the members whose names exactly equal a declared name, and
// returns the undeclared members when the shape keeps them.
//
// Why the detour through a filtered object: encoding/json matches member names
// case-insensitively, so {"name":"a","Name":"b"} would fill Name with "b" while every
// case-sensitive reader (Rust's serde, JavaScript) sees "a". Handing encoding/json only the
// exactly named members leaves it nothing to match loosely.
func decodeObject(data []byte, target any, shape *objectShape) (map[string]json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, fmt.Errorf("gortexproto: %s: %w", shape.typeName, err)
	}
	if members == nil {
		return nil, fmt.Errorf("gortexproto: %s: expected an object, got null", shape.typeName)
	}
	declared := make(map[string]json.RawMessage, len(members))
	var extra map[string]json.RawMessage
	var undeclared []string
	for name, raw := range members {
		switch {
		case shape.isDeclared(name):
			declared[name] = raw
		case shape.keep:
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[name] = raw
		case shape.closed:
			undeclared = append(undeclared, name)
		}
	}
	if len(undeclared) > 0 {
		sort.Strings(undeclared)
		return nil, fmt.Errorf("gortexproto: %s: unknown member %q", shape.typeName, undeclared[0])
	}
	for _, name := range shape.required {
		if _, present := declared[name]; !present {
			return nil, fmt.Errorf("gortexproto: %s: missing required member %q", shape.typeName, name)
		}
	}
	filtered, err := json.Marshal(declared)
	if err != nil {
		return nil, fmt.Errorf("gortexproto: %s: %w", shape.typeName, err)
	}
	if err := json.Unmarshal(filtered, target); err != nil {
		return nil, fmt.Errorf("gortexproto: %s: %w", shape.typeName, err)
	}
	return extra, nil
}

// withMembers adds extra members to the encoded JSON object data; declared members win.
func withMembers(data []byte, extra map[string]json.RawMessage) ([]byte, error) {
	if len(extra) == 0 {
		return data, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for name, value := range extra {
		if _, declared := all[name]; !declared {
			all[name] = value
		}
	}
	return json.Marshal(all)
}
