package persona

// matcher finds, in one pass over a line, which of a fixed set of needles
// occur in it (an Aho-Corasick automaton compiled to a table). Matching is
// ASCII case-insensitive: needles are lower case and upper-case letters of
// the line fold onto the same byte class. Selection runs it once per added
// or deleted line instead of one substring search per needle.
type matcher struct {
	class  [256]uint16 // byte → class; 0 is "in no needle"
	nclass int
	// next[base+class] is the base of the next state, where a state's base
	// is its number times nclass: one load and one add per byte.
	next []int32
	// out[state] lists the needles that end at state; hasOut[base] says
	// whether that list is non-empty, so most bytes skip it.
	out    [][]uint16
	hasOut []bool
}

// maxNeedles bounds the needle ids to the width of a needleSet.
const maxNeedles = 64 * len(needleSet{})

// needleSet is a bit set of needle ids.
type needleSet [8]uint64

func (s *needleSet) add(id int)  { s[id/64] |= 1 << (id % 64) }
func (s *needleSet) empty() bool { return *s == needleSet{} }
func (s *needleSet) clear()      { *s = needleSet{} }
func (s *needleSet) meets(m *needleSet) bool {
	for i := range s {
		if s[i]&m[i] != 0 {
			return true
		}
	}
	return false
}

// newMatcher compiles needles (lower case, non-empty); needle i has id i.
func newMatcher(needles []string) *matcher {
	m := &matcher{}
	for _, n := range needles {
		for i := 0; i < len(n); i++ {
			if m.class[n[i]] == 0 {
				m.nclass++
				m.class[n[i]] = uint16(m.nclass)
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	m.nclass++ // class 0 included

	// Trie.
	goTo := [][]int32{make([]int32, m.nclass)}
	m.out = [][]uint16{nil}
	for id, n := range needles {
		s := int32(0)
		for i := 0; i < len(n); i++ {
			c := m.class[n[i]]
			if goTo[s][c] == 0 {
				goTo = append(goTo, make([]int32, m.nclass))
				m.out = append(m.out, nil)
				goTo[s][c] = int32(len(goTo) - 1)
			}
			s = goTo[s][c]
		}
		m.out[s] = append(m.out[s], uint16(id))
	}
	// Breadth-first failure links, folded into a full transition table.
	fail := make([]int32, len(goTo))
	queue := make([]int32, 0, len(goTo))
	for c := 1; c < m.nclass; c++ {
		if s := goTo[0][c]; s != 0 {
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] = append(m.out[s], m.out[fail[s]]...)
		for c := 1; c < m.nclass; c++ {
			t := goTo[s][c]
			if t == 0 {
				goTo[s][c] = goTo[fail[s]][c]
				continue
			}
			fail[t] = goTo[fail[s]][c]
			queue = append(queue, t)
		}
	}
	m.next = make([]int32, len(goTo)*m.nclass)
	m.hasOut = make([]bool, len(goTo)*m.nclass)
	for s, row := range goTo {
		for c, t := range row {
			m.next[s*m.nclass+c] = t * int32(m.nclass)
		}
		m.hasOut[s*m.nclass] = len(m.out[s]) > 0
	}
	return m
}

// find sets in found the id of every needle that occurs in line.
func (m *matcher) find(line string, found *needleSet) {
	base := int32(0)
	for i := 0; i < len(line); i++ {
		base = m.next[base+int32(m.class[line[i]])]
		if m.hasOut[base] {
			for _, id := range m.out[int(base)/m.nclass] {
				found.add(int(id))
			}
		}
	}
}
