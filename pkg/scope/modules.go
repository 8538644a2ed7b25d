package scope

import (
	"path"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// What vendor/modules.txt says at the base: which module each vendored
// package comes from. A hand edit of vendor/ is explained only by a change
// of the line of the module that holds the edited package (explain.go);
// the diff alone cannot say which module that is, since the module's own
// line may sit far from the hunk (a bump of cloud.google.com/go beside an
// edit of cloud.google.com/go/storage, a module of its own) and the PR may
// add a line of its own ("# golang.org/x v0.0.0") to claim a whole tree.

// vendorList is one vendor/modules.txt as the base holds it.
type vendorList struct {
	modules  map[string]bool   // module paths ("# path version" lines)
	packages map[string]string // package import path → the module listing it
}

// parseVendorList reads modules.txt: "# module version [=> replacement]"
// lines open a module, "## ..." lines annotate it, and every other line
// names a package vendored from the module above it.
func parseVendorList(text string) *vendorList {
	v := &vendorList{modules: map[string]bool{}, packages: map[string]string{}}
	module := ""
	for line := range strings.Lines(text) {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0, fields[0] == "##":
		case fields[0] == "#":
			module = ""
			if len(fields) >= 2 {
				module = fields[1]
				v.modules[module] = true
			}
		case module != "" && len(fields) == 1:
			v.packages[fields[0]] = module
		}
	}
	return v
}

// AddVendorList records the base's text of the vendor/modules.txt at p.
func (b *Base) AddVendorList(p, text string) {
	if b.vendorLists == nil {
		b.vendorLists = map[string]*vendorList{}
	}
	b.vendorLists[strings.Trim(p, "/")] = parseVendorList(text)
}

// vendorList is the base's modules.txt at p, nil when it was not read.
func (b *Base) vendorList(p string) *vendorList {
	if b == nil {
		return nil
	}
	return b.vendorLists[p]
}

// VendorLists are the vendor/modules.txt files of d that the base may hold:
// the ones a review reads at the base for AddVendorList.
func VendorLists(d *diff.Diff) []string {
	var out []string
	if d == nil {
		return out
	}
	for _, f := range d.Files {
		if p := f.OldPath; path.Base(p) == "modules.txt" && path.Base(path.Dir(p)) == "vendor" && f.Status != diff.Added {
			out = append(out, p)
		}
	}
	return out
}

// owner is the module holding rel (a path under vendor/): the module the
// list files rel's package under; for a package it does not list (one the
// PR adds), the longest module path, of the list's and of more (those the
// diff adds), that rel lies under and that can be a module root. "" when
// none holds it.
func (v *vendorList) owner(rel string, more []string) string {
	if m, ok := v.packages[path.Dir(rel)]; ok {
		return m
	}
	best := ""
	consider := func(m string) {
		if strings.HasPrefix(rel, m+"/") && moduleRoot(m) && len(m) > len(best) {
			best = m
		}
	}
	for m := range v.modules {
		consider(m)
	}
	for _, m := range more {
		consider(m)
	}
	return best
}
