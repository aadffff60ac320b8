package explore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ocbench/ocbench/proto"
)

// A nodeCodec turns the nodes of one system into canonical bytes and back,
// generically, by reflection over their concrete types (unexported fields
// included):
//
//   - numbers and booleans are their memory; structs and arrays without
//     pointers or padding are copied as one block;
//   - strings, slices and maps are encoded by content (length first; a nil
//     slice or map differs from an empty one; map entries sorted by their
//     keys' encodings, so iteration order does not matter);
//   - a pointer is encoded by the content it points to, the first time an
//     encoding meets it, and as a back-reference after that, so aliasing
//     inside one node survives a round trip; a pointer that two nodes of
//     the initial configuration share (their common configuration) is
//     encoded as its identity and restored as the same pointer, never
//     copied;
//   - interfaces are encoded as their dynamic type (an index into a table
//     the codec keeps) and value; funcs, channels and unsafe pointers as
//     their identity.
//
// Two nodes whose encodings are equal behave alike: the encoding holds every
// bit a step can read, except the identity of shared configuration and of
// funcs (which a step cannot change) and a slice's spare capacity.
//
// Workers share one nodeCodec: the codecs built are published read only
// (ready), and what grows (codecs being built, identities, interface
// types) is guarded by mu.
type nodeCodec struct {
	ready  atomic.Pointer[map[reflect.Type]*codec]
	mu     sync.Mutex
	codecs map[reflect.Type]*codec   // guarded by mu: published and being built
	shared map[unsafe.Pointer]uint32 // pointers shared by the initial nodes
	ids    []unsafe.Pointer          // shared pointers and func/chan identities, by index
	idOf   map[unsafe.Pointer]uint32 // funcs, channels, unsafe pointers
	types  []reflect.Type            // dynamic types of interfaces, by index
	typeOf map[reflect.Type]uint32
}

// codec encodes and decodes the values of one type, at a memory address.
type codec struct {
	size uintptr
	pod  bool // plain memory: no pointer, no padding
	enc  func(c *coder, p unsafe.Pointer)
	dec  func(c *coder, p unsafe.Pointer)
}

// coder is the state of one encoding or decoding: the buffer, the read
// position, and the pointers met so far (for back-references).
type coder struct {
	nc   *nodeCodec
	buf  []byte
	pos  int
	refs []unsafe.Pointer
	// collect, when not nil, records the pointers met (newCodec's pass
	// over the initial nodes) instead of checking the shared table.
	collect map[unsafe.Pointer]int
	node    int
}

func (c *coder) varint(v uint64) { c.buf = binary.AppendUvarint(c.buf, v) }

func (c *coder) readVarint() uint64 {
	v, n := binary.Uvarint(c.buf[c.pos:])
	if n <= 0 {
		panic(errCorrupt)
	}
	c.pos += n
	return v
}

func (c *coder) read(n int) []byte {
	if n < 0 || c.pos+n > len(c.buf) {
		panic(errCorrupt)
	}
	b := c.buf[c.pos : c.pos+n]
	c.pos += n
	return b
}

var errCorrupt = fmt.Errorf("explore: corrupt state encoding")

// newNodeCodec returns the codec of the nodes of one system, given in their
// initial configuration: pointers that two of them share are configuration.
func newNodeCodec(nodes []proto.Node) (*nodeCodec, error) {
	nc := &nodeCodec{codecs: map[reflect.Type]*codec{}, shared: map[unsafe.Pointer]uint32{},
		idOf: map[unsafe.Pointer]uint32{}, typeOf: map[reflect.Type]uint32{}}
	seen := map[unsafe.Pointer]int{}
	for i, n := range nodes {
		v := reflect.ValueOf(n)
		if v.Kind() != reflect.Pointer || v.IsNil() {
			return nil, fmt.Errorf("explore: node %d is a %T, not a pointer to a struct: the explorer copies nodes through their pointer", i, n)
		}
		c := &coder{nc: nc, collect: seen, node: i}
		if err := c.encodeNode(n); err != nil {
			return nil, err
		}
	}
	for p, owner := range seen {
		if owner < 0 {
			nc.shared[p] = uint32(len(nc.ids))
			nc.ids = append(nc.ids, p)
		}
	}
	return nc, nil
}

// encodeNode appends n's encoding to c.buf.
func (c *coder) encodeNode(n proto.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				e = fmt.Errorf("%v", r)
			}
			err = fmt.Errorf("explore: encoding a %T: %w", n, e)
		}
	}()
	v := reflect.ValueOf(n)
	cd := c.nc.codecFor(v.Type().Elem())
	p := v.UnsafePointer()
	c.refs = append(c.refs[:0], p)
	cd.enc(c, p)
	return nil
}

// decodeNode returns a new node of type t (a pointer type) from b.
func (nc *nodeCodec) decodeNode(t reflect.Type, b []byte) (n proto.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				e = fmt.Errorf("%v", r)
			}
			err = fmt.Errorf("explore: decoding a %v: %w", t, e)
		}
	}()
	v := reflect.New(t.Elem())
	c := coder{nc: nc, buf: b}
	p := v.UnsafePointer()
	c.refs = append(c.refs, p)
	nc.codecFor(t.Elem()).dec(&c, p)
	if c.pos != len(b) {
		return nil, errCorrupt
	}
	return v.Interface().(proto.Node), nil
}

func (nc *nodeCodec) identity(p unsafe.Pointer) uint32 {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	if k, ok := nc.idOf[p]; ok {
		return k
	}
	k := uint32(len(nc.ids))
	nc.ids = append(nc.ids, p)
	nc.idOf[p] = k
	return k
}

func (nc *nodeCodec) typeIndex(t reflect.Type) uint32 {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	if k, ok := nc.typeOf[t]; ok {
		return k
	}
	k := uint32(len(nc.types))
	nc.types = append(nc.types, t)
	nc.typeOf[t] = k
	return k
}

// idAt returns the pointer of identity k.
func (nc *nodeCodec) idAt(k uint64) unsafe.Pointer {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	if k >= uint64(len(nc.ids)) {
		panic(errCorrupt)
	}
	return nc.ids[k]
}

// typeAt returns the interface type of index k.
func (nc *nodeCodec) typeAt(k uint64) reflect.Type {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	if k >= uint64(len(nc.types)) {
		panic(errCorrupt)
	}
	return nc.types[k]
}

// codecFor returns the codec of type t, building it (and those of the
// types it holds) on first use.
func (nc *nodeCodec) codecFor(t reflect.Type) *codec {
	if m := nc.ready.Load(); m != nil {
		if cd, ok := (*m)[t]; ok {
			return cd
		}
	}
	nc.mu.Lock()
	defer nc.mu.Unlock()
	cd := nc.build(t)
	m := maps.Clone(nc.codecs)
	nc.ready.Store(&m)
	return cd
}

// build returns the codec of type t, building it if it is not in
// nc.codecs; nc.mu is held.
func (nc *nodeCodec) build(t reflect.Type) *codec {
	if cd, ok := nc.codecs[t]; ok {
		return cd
	}
	cd := &codec{size: t.Size()}
	nc.codecs[t] = cd // before the fields: recursive types
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		cd.pod = true
	case reflect.Array:
		ec := nc.build(t.Elem())
		if ec.pod {
			cd.pod = true
			break
		}
		n, es := t.Len(), t.Elem().Size()
		cd.enc = func(c *coder, p unsafe.Pointer) {
			for i := range n {
				ec.enc(c, unsafe.Add(p, uintptr(i)*es))
			}
		}
		cd.dec = func(c *coder, p unsafe.Pointer) {
			for i := range n {
				ec.dec(c, unsafe.Add(p, uintptr(i)*es))
			}
		}
	case reflect.Struct:
		nc.structCodec(t, cd)
	case reflect.String:
		cd.enc = func(c *coder, p unsafe.Pointer) {
			s := *(*string)(p)
			c.varint(uint64(len(s)))
			c.buf = append(c.buf, s...)
		}
		cd.dec = func(c *coder, p unsafe.Pointer) {
			n := c.readVarint()
			*(*string)(p) = string(c.read(int(n)))
		}
	case reflect.Slice:
		nc.sliceCodec(t, cd)
	case reflect.Map:
		nc.mapCodec(t, cd)
	case reflect.Pointer:
		nc.pointerCodec(t, cd)
	case reflect.Interface:
		nc.interfaceCodec(t, cd)
	default: // Func, Chan, UnsafePointer: identity
		cd.enc = func(c *coder, p unsafe.Pointer) {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				c.varint(0)
				return
			}
			c.varint(uint64(c.nc.identity(q)) + 1)
		}
		cd.dec = func(c *coder, p unsafe.Pointer) {
			k := c.readVarint()
			if k == 0 {
				*(*unsafe.Pointer)(p) = nil
				return
			}
			*(*unsafe.Pointer)(p) = c.nc.idAt(k - 1)
		}
	}
	if cd.pod {
		size := int(cd.size)
		cd.enc = func(c *coder, p unsafe.Pointer) {
			c.buf = append(c.buf, unsafe.Slice((*byte)(p), size)...)
		}
		cd.dec = func(c *coder, p unsafe.Pointer) {
			copy(unsafe.Slice((*byte)(p), size), c.read(size))
		}
	}
	return cd
}

// structCodec fills cd for struct type t: its fields in order, runs of
// adjacent plain fields copied as one block; plain as a whole if every
// field is and there is no padding.
func (nc *nodeCodec) structCodec(t reflect.Type, cd *codec) {
	type op struct {
		off, size uintptr
		cd        *codec // nil: a block of plain memory
	}
	var ops []op
	pod, end := true, uintptr(0)
	for i := range t.NumField() {
		f := t.Field(i)
		fc := nc.build(f.Type)
		if f.Offset != end {
			pod = false
		}
		end = f.Offset + f.Type.Size()
		if !fc.pod {
			pod = false
			ops = append(ops, op{off: f.Offset, cd: fc})
			continue
		}
		if k := len(ops) - 1; k >= 0 && ops[k].cd == nil && ops[k].off+ops[k].size == f.Offset {
			ops[k].size += f.Type.Size()
			continue
		}
		ops = append(ops, op{off: f.Offset, size: f.Type.Size()})
	}
	if pod && end == t.Size() {
		cd.pod = true
		return
	}
	cd.enc = func(c *coder, p unsafe.Pointer) {
		for _, o := range ops {
			if o.cd == nil {
				c.buf = append(c.buf, unsafe.Slice((*byte)(unsafe.Add(p, o.off)), o.size)...)
				continue
			}
			o.cd.enc(c, unsafe.Add(p, o.off))
		}
	}
	cd.dec = func(c *coder, p unsafe.Pointer) {
		for _, o := range ops {
			if o.cd == nil {
				copy(unsafe.Slice((*byte)(unsafe.Add(p, o.off)), o.size), c.read(int(o.size)))
				continue
			}
			o.cd.dec(c, unsafe.Add(p, o.off))
		}
	}
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func (nc *nodeCodec) sliceCodec(t reflect.Type, cd *codec) {
	ec := nc.build(t.Elem())
	es := t.Elem().Size()
	cd.enc = func(c *coder, p unsafe.Pointer) {
		h := (*sliceHeader)(p)
		if h.data == nil {
			c.varint(0)
			return
		}
		c.varint(uint64(h.len) + 1)
		if ec.pod {
			c.buf = append(c.buf, unsafe.Slice((*byte)(h.data), uintptr(h.len)*es)...)
			return
		}
		for i := range h.len {
			ec.enc(c, unsafe.Add(h.data, uintptr(i)*es))
		}
	}
	cd.dec = func(c *coder, p unsafe.Pointer) {
		n := c.readVarint()
		v := reflect.NewAt(t, p).Elem()
		if n == 0 {
			v.SetZero()
			return
		}
		n--
		if n > uint64(len(c.buf)) { // every element takes a byte at least, or is empty
			if es != 0 || n > 1<<20 {
				panic(errCorrupt)
			}
		}
		v.Set(reflect.MakeSlice(t, int(n), int(n)))
		h := (*sliceHeader)(p)
		if ec.pod {
			copy(unsafe.Slice((*byte)(h.data), uintptr(n)*es), c.read(int(uintptr(n)*es)))
			return
		}
		for i := range int(n) {
			ec.dec(c, unsafe.Add(h.data, uintptr(i)*es))
		}
	}
}

func (nc *nodeCodec) mapCodec(t reflect.Type, cd *codec) {
	kc, vc := nc.build(t.Key()), nc.build(t.Elem())
	cd.enc = func(c *coder, p unsafe.Pointer) {
		m := reflect.NewAt(t, p).Elem()
		if m.IsNil() {
			c.varint(0)
			return
		}
		c.varint(uint64(m.Len()) + 1)
		type entry struct{ k, v []byte }
		entries := make([]entry, 0, m.Len())
		it := m.MapRange()
		kv, vv := reflect.New(t.Key()), reflect.New(t.Elem())
		for it.Next() {
			kv.Elem().Set(it.Key())
			vv.Elem().Set(it.Value())
			// Each entry is its own scope of back-references: entries
			// are written in key order, not in the order met.
			sub := coder{nc: c.nc, collect: c.collect, node: c.node}
			kc.enc(&sub, kv.UnsafePointer())
			kb := sub.buf
			sub.buf = nil
			vc.enc(&sub, vv.UnsafePointer())
			entries = append(entries, entry{kb, sub.buf})
		}
		slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.k, b.k) })
		for _, e := range entries {
			c.buf = append(c.buf, e.k...)
			c.buf = append(c.buf, e.v...)
		}
	}
	cd.dec = func(c *coder, p unsafe.Pointer) {
		n := c.readVarint()
		m := reflect.NewAt(t, p).Elem()
		if n == 0 {
			m.SetZero()
			return
		}
		n--
		if n > uint64(len(c.buf)) {
			panic(errCorrupt)
		}
		m.Set(reflect.MakeMapWithSize(t, int(n)))
		outer := c.refs
		for range n {
			kv, vv := reflect.New(t.Key()), reflect.New(t.Elem())
			c.refs = nil
			kc.dec(c, kv.UnsafePointer())
			vc.dec(c, vv.UnsafePointer())
			m.SetMapIndex(kv.Elem(), vv.Elem())
		}
		c.refs = outer
	}
}

// Pointer encodings: 0 nil, 1 shared (its index follows), 2 met before
// in this encoding (its index follows), 3 new (its content follows).
func (nc *nodeCodec) pointerCodec(t reflect.Type, cd *codec) {
	elem := t.Elem()
	cd.enc = func(c *coder, p unsafe.Pointer) {
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			c.buf = append(c.buf, 0)
			return
		}
		if c.collect != nil {
			if owner, ok := c.collect[q]; ok && owner != c.node {
				c.collect[q] = -1
			} else if !ok {
				c.collect[q] = c.node
			}
		} else if k, ok := c.nc.shared[q]; ok {
			c.buf = append(c.buf, 1)
			c.varint(uint64(k))
			return
		}
		if k := slices.Index(c.refs, q); k >= 0 {
			c.buf = append(c.buf, 2)
			c.varint(uint64(k))
			return
		}
		c.refs = append(c.refs, q)
		c.buf = append(c.buf, 3)
		c.nc.codecFor(elem).enc(c, q)
	}
	cd.dec = func(c *coder, p unsafe.Pointer) {
		switch c.read(1)[0] {
		case 0:
			*(*unsafe.Pointer)(p) = nil
		case 1:
			k := c.readVarint()
			*(*unsafe.Pointer)(p) = c.nc.idAt(k)
		case 2:
			k := c.readVarint()
			if k >= uint64(len(c.refs)) {
				panic(errCorrupt)
			}
			*(*unsafe.Pointer)(p) = c.refs[k]
		case 3:
			q := reflect.New(elem).UnsafePointer()
			c.refs = append(c.refs, q)
			c.nc.codecFor(elem).dec(c, q)
			*(*unsafe.Pointer)(p) = q
		default:
			panic(errCorrupt)
		}
	}
}

func (nc *nodeCodec) interfaceCodec(t reflect.Type, cd *codec) {
	cd.enc = func(c *coder, p unsafe.Pointer) {
		v := reflect.NewAt(t, p).Elem()
		if v.IsNil() {
			c.varint(0)
			return
		}
		dyn := v.Elem()
		c.varint(uint64(c.nc.typeIndex(dyn.Type())) + 1)
		tmp := reflect.New(dyn.Type())
		tmp.Elem().Set(dyn)
		c.nc.codecFor(dyn.Type()).enc(c, tmp.UnsafePointer())
	}
	cd.dec = func(c *coder, p unsafe.Pointer) {
		k := c.readVarint()
		v := reflect.NewAt(t, p).Elem()
		if k == 0 {
			v.SetZero()
			return
		}
		dt := c.nc.typeAt(k - 1)
		tmp := reflect.New(dt)
		c.nc.codecFor(dt).dec(c, tmp.UnsafePointer())
		v.Set(tmp.Elem())
	}
}

func typeOf(n proto.Node) reflect.Type { return reflect.TypeOf(n) }
