package persona

import (
	"path"
	"strings"
)

// The signal rules. Each conditional persona whose activation depends on
// the diff has an ordered list of rules, strongest signal first; a rule
// looks at a file's path or at one added or deleted line and yields the
// label of the signal it saw. Line rules are substring needles, all of them
// found in one pass per line by a matcher; the few rules that need more
// (SQL text, loops, Go declarations) run their check only on lines where
// their needles occur. The lists are built by functions, not package
// variables, so nothing here is mutable state.

// pathInfo is what path rules see, computed once per file.
type pathInfo struct {
	lower string   // lower-cased path
	base  string   // lower-cased base name
	words []string // lower-cased path split on every non-alphanumeric rune
	lang  lang
}

// lineInfo is what line rules see: one line of code, added or deleted (or,
// for personas that read context, a context line).
type lineInfo struct {
	raw    string // the line as written
	lower  string // lower-cased, filled in by low on first use
	file   *pathInfo
	inLoop bool   // within loopWindow lines after a loop header
	prev   string // the line of code before it on the same side of the hunk, "" at the start
	next   string // the line of code after it on the same side, "" at the end
}

// low returns the lower-cased line; only rules whose needles matched need it.
func (l *lineInfo) low() string {
	if l.lower == "" && l.raw != "" {
		l.lower = strings.ToLower(l.raw)
	}
	return l.lower
}

// rule is a path rule (path set) or a line rule. A line rule fires when one
// of any occurs in the line, and one of also (when given), and then check
// (when given) returns a label; otherwise its label is the signal.
type rule struct {
	path  func(p *pathInfo) string
	label string
	any   []string
	also  []string
	check func(l *lineInfo) string

	anyIDs, alsoIDs needleSet // compiled by newScanner
}

type scan struct {
	name  string
	rules []rule
	// context: the persona's line rules also read the diff's context lines
	// of a file whose change touches code. A context line shows what the
	// change sits in and can reach (a bearer token logged two lines up);
	// for security that is worth a call, for the others the changed lines
	// decide.
	context bool
}

// scanner is the compiled rule table: every line needle in one matcher.
type scanner struct {
	table []scan
	m     *matcher
}

// scanned returns the personas selected by diff signals, with their rules.
func scanned() []scan {
	return []scan{
		{"security", securityRules(), true},
		{"performance", performanceRules(), false},
		{"api-contract", apiRules(), false},
		{"data-migrations", migrationRules(), false},
		{"reliability", reliabilityRules(), false},
		{"adversarial", adversarialRules(), false},
	}
}

func newScanner() *scanner {
	sc := &scanner{table: scanned()}
	ids := map[string]int{}
	var needles []string
	id := func(n string) int {
		if i, ok := ids[n]; ok {
			return i
		}
		ids[n] = len(needles)
		needles = append(needles, n)
		return ids[n]
	}
	for _, t := range sc.table {
		for r := range t.rules {
			ru := &t.rules[r]
			for _, n := range ru.any {
				ru.anyIDs.add(id(n))
			}
			for _, n := range ru.also {
				ru.alsoIDs.add(id(n))
			}
		}
	}
	if len(needles) > maxNeedles {
		panic("persona: more line needles than a needleSet holds") // a defect in this file, caught by every test
	}
	sc.m = newMatcher(needles)
	return sc
}

// lineMatch returns the rule's label if it fires on l, given the needles
// found in the line.
func (ru *rule) lineMatch(l *lineInfo, found *needleSet) string {
	if ru.path != nil || !ru.anyIDs.meets(found) {
		return ""
	}
	if !ru.alsoIDs.empty() && !ru.alsoIDs.meets(found) {
		return ""
	}
	if ru.check != nil {
		return ru.check(l)
	}
	return ru.label
}

func newPathInfo(p string) pathInfo {
	lower := strings.ToLower(p)
	fi := pathInfo{lower: lower, base: path.Base(lower)}
	fi.lang = langOf(fi.base)
	fi.words = strings.FieldsFunc(lower, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	return fi
}

// hasDir reports whether one of the directories of p is named like dirs.
func hasDir(p string, dirs ...string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(p, d+"/") || strings.Contains(p, "/"+d+"/") {
			return true
		}
	}
	return false
}

func hasSuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

func hasPrefix(s string, prefixes ...string) bool {
	for _, x := range prefixes {
		if strings.HasPrefix(s, x) {
			return true
		}
	}
	return false
}

func containsAny(s string, needles ...string) bool {
	for _, n := range needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// anyLine is a line rule that fires when the line contains one of needles
// (lower case; matched case-insensitively).
func anyLine(label string, needles ...string) rule {
	return rule{label: label, any: needles}
}

// pathWords is a path rule that fires when a path component (split on
// non-alphanumerics) equals one of exact or starts with one of prefix.
func pathWords(label string, exact, prefix []string) rule {
	return rule{path: func(p *pathInfo) string {
		for _, w := range p.words {
			for _, e := range exact {
				if w == e {
					return label
				}
			}
			if hasPrefix(w, prefix...) {
				return label
			}
		}
		return ""
	}}
}

// Words that mark authentication, session and crypto code in paths. "auth"
// must match exactly so "author" does not count.
func authExact() []string {
	return []string{"auth", "authn", "authz", "oauth", "oauth2", "jwt", "sso", "saml", "login", "logout", "signin", "signup", "csrf", "acl", "rbac", "iam"}
}

func authPrefix() []string {
	return []string{"authenticat", "authoriz", "session", "password", "passwd", "credential", "crypt", "encrypt", "decrypt", "secret", "permission", "token"}
}

func securityRules() []rule {
	return []rule{
		{
			any:  []string{"select ", "insert into ", "delete from ", " where ", "order by ", "update "},
			also: []string{`" +`, `+ "`, `' +`, `+ '`, "` +", "+ `", "sprintf", ".format(", `f"`, "${", "%s", "%v", "concat("},
			check: func(l *lineInfo) string {
				if sqlText(l.low()) {
					return "SQL built from strings"
				}
				return ""
			},
		},
		anyLine("shell command execution", "exec.command", "os/exec", "subprocess.", "os.system(", "os.popen(", "child_process", "shell=true", "runtime.getruntime().exec", "syscall.exec"),
		anyLine("unescaped template output", "template.html(", "template.js(", "text/template", "dangerouslysetinnerhtml", ".innerhtml", "|safe", "mark_safe(", "render_template_string", "v-html", "html_safe", ".raw("),
		anyLine("TLS or certificate verification", "insecureskipverify", "verify=false", "rejectunauthorized", "tls.config"),
		anyLine("cryptography", "crypto/", "md5", "sha1", "bcrypt", "scrypt", "argon2", "hmac", "cipher", "rsa.", "ecdsa", "ed25519", "hashlib", "randombytes", "subtle.constanttimecompare"),
		anyLine("secret or credential handling", "password", "passwd", "secret", "api_key", "apikey", "private_key", "privatekey", "credential", "bearer "),
		anyLine("authentication or authorization check", "authenticat", "authoriz", "isadmin", "is_admin", "requireauth", "require_auth", "login", "oauth", "rbac", "acl", "permission"),
		anyLine("session or cookie handling", "sessionid", "session_id", "session_key", "session[", "request.session", "req.session", "set_cookie", "setcookie", "cookie", "jwt", "csrf"),
		{
			any: []string{"token"},
			check: func(l *lineInfo) string {
				if securityToken(l.low()) {
					return "token handling"
				}
				return ""
			},
		},
		anyLine("file permission change", "chmod", "0777", "0o777", "0666", "os.modeperm", "setuid", "umask"),
		anyLine("untrusted input parsing", "unmarshal", "pickle.load", "yaml.load", "deserializ", "objectinputstream", "xml.newdecoder", "json.newdecoder", "parseform", "formvalue(", "url.query()", "request.args", "request.form", "req.body", "req.query", "req.params", "r.body"),
		anyLine("HTTP handler", "http.handlerfunc", "http.responsewriter", "*http.request", "gin.context", "echo.context", "fiber.ctx", "@app.route", "@router.", "handlefunc(", "@getmapping", "@postmapping", "@requestmapping", "(req, res"),
		pathWords("auth, session or crypto code", authExact(), authPrefix()),
	}
}

// sqlText reports whether a lower-cased line looks like SQL text.
func sqlText(s string) bool {
	return strings.Contains(s, "select ") && strings.Contains(s, " from ") ||
		containsAny(s, "insert into ", "delete from ", " where ", "order by ") ||
		strings.Contains(s, "update ") && strings.Contains(s, " set ")
}

func queryNeedles() []string {
	return []string{".query(", ".querycontext(", ".queryrow(", ".queryrowcontext(", ".exec(", ".execcontext(",
		".findall(", ".findone(", ".findby", ".find_by", "objects.filter(", "objects.get(", ".preload(", ".joins(", ".first(&", ".scan(&"}
}

func ioNeedles() []string {
	return []string{"http.get(", "http.post(", "client.do(", ".do(req", "fetch(", "axios.", "requests.get(", "requests.post(",
		"os.open(", "os.readfile(", "os.writefile(", "ioutil.readfile(", "open(", ".readall(", "grpc.", ".get(ctx", ".send(", "redis.", ".invoke("}
}

// queryCall reports whether a lower-cased line calls a database.
func queryCall(s string) bool {
	return containsAny(s, queryNeedles()...) || strings.Contains(s, "select ") && strings.Contains(s, " from ")
}

// ioCall reports whether a lower-cased line does network or file I/O.
func ioCall(s string) bool { return containsAny(s, ioNeedles()...) }

// isLoop reports whether a line opens a loop over a collection. Loop
// keywords are lower case in every language this looks for, so the raw line
// is enough.
func isLoop(s string, golang bool) bool {
	t := strings.TrimSpace(s)
	if golang {
		return strings.HasPrefix(t, "for ") && strings.Contains(t, " range ")
	}
	return hasPrefix(t, "for (const ", "for (let ", "for (var ", "for (auto ", "foreach ", "foreach(") ||
		strings.HasPrefix(t, "for ") && strings.Contains(t, " in ") ||
		containsAny(t, ".forEach(", ".each do", ".each {")
}

func performanceRules() []rule {
	queryGate := append(queryNeedles(), "select ")
	return []rule{
		{
			any: append(queryGate, ioNeedles()...),
			check: func(l *lineInfo) string {
				if l.inLoop && (queryCall(l.low()) || ioCall(l.low())) {
					return "query or I/O inside a loop"
				}
				return ""
			},
		},
		{
			any: queryGate,
			check: func(l *lineInfo) string {
				if queryCall(l.low()) {
					return "database query"
				}
				return ""
			},
		},
		anyLine("caching", "cache", "memoiz", "lru"),
		pathWords("caching code", []string{"cache", "caches", "caching", "lru"}, nil),
		{
			any: []string{"for ", "foreach", ".each do", ".each {"},
			check: func(l *lineInfo) string {
				if isLoop(l.raw, l.file.lang == langGo) {
					return "loop over a collection"
				}
				return ""
			},
		},
	}
}

func apiRules() []rule {
	suffix := func(label string, sfx ...string) rule {
		return rule{path: func(p *pathInfo) string {
			if hasSuffix(p.lower, sfx...) {
				return label
			}
			return ""
		}}
	}
	return []rule{
		suffix("protobuf schema", ".proto"),
		{path: func(p *pathInfo) string {
			if containsAny(p.base, "openapi", "swagger") {
				return "OpenAPI spec"
			}
			return ""
		}},
		suffix("GraphQL schema", ".graphql", ".graphqls", ".gql"),
		suffix("JSON or Avro schema", ".schema.json", ".avsc"),
		{
			any: []string{"func ", "type "},
			check: func(l *lineInfo) string {
				if name := exportedGoDecl(l.raw); l.file.lang == langGo && name != "" {
					return "exported Go signature " + name + " changed"
				}
				return ""
			},
		},
		anyLine("HTTP route", "handlefunc(", ".handle(\"", "@app.route", "@router.", "app.get(", "app.post(", "app.put(", "app.patch(", "app.delete(", "router.get(", "router.post(", "router.put(", "router.delete(", "r.get(\"", "r.post(\"", "mux.handle", "@getmapping", "@postmapping", "@requestmapping", "path(\""),
		anyLine("serialized field", "`json:\"", "`xml:\"", "`yaml:\"", "`protobuf:\"", "marshaljson", "unmarshaljson", "serializer", "@jsonproperty", "json_name", "to_json", "as_json", "@serializedname"),
		{
			any: []string{"/v", "apiversion", "api_version"},
			check: func(l *lineInfo) string {
				if versionedPath(l.low()) || containsAny(l.low(), "apiversion", "api_version") {
					return "API versioning"
				}
				return ""
			},
		},
		anyLine("exported JS/TS declaration", "export function ", "export async function ", "export const ", "export class ", "export interface ", "export type ", "export default ", "module.exports"),
		{
			any: []string{"def ", "class "},
			check: func(l *lineInfo) string {
				if name := publicPythonDecl(l.raw); l.file.lang == langPython && name != "" && !privatePythonModule(l.file) {
					return "public Python signature " + name + " changed"
				}
				return ""
			},
		},
		{
			any: []string{"= function", "=function", "=>", "exports."},
			check: func(l *lineInfo) string {
				if name := publicJSAssignment(l.raw); l.file.lang == langJS && name != "" {
					return "public JavaScript function " + name + " changed"
				}
				return ""
			},
		},
	}
}

// exportedGoDecl returns the name of an exported top-level Go func, method
// or type declared on line, or "".
func exportedGoDecl(line string) string {
	var rest string
	switch {
	case strings.HasPrefix(line, "func "):
		rest = line[len("func "):]
		if strings.HasPrefix(rest, "(") {
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				return ""
			}
			rest = strings.TrimLeft(rest[end+1:], " ")
		}
	case strings.HasPrefix(line, "type "):
		rest = line[len("type "):]
	default:
		return ""
	}
	end := strings.IndexAny(rest, "([ \t{=")
	if end < 0 {
		end = len(rest)
	}
	name := rest[:end]
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return ""
	}
	return name
}

// versionedPath reports whether s holds a path segment like "/v2/".
func versionedPath(s string) bool {
	for i := strings.Index(s, "/v"); i >= 0; {
		j := i + 2
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > i+2 && j < len(s) && (s[j] == '/' || s[j] == '"' || s[j] == '\'') {
			return true
		}
		next := strings.Index(s[i+2:], "/v")
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return false
}

func migrationRules() []rule {
	return []rule{
		pathWords("migration file", []string{"migrations", "migration", "migrate", "alembic", "flyway", "liquibase"}, nil),
		{path: func(p *pathInfo) string {
			switch {
			case p.base == "schema.rb" || p.base == "schema.prisma" || p.base == "structure.sql":
				return "schema file"
			case strings.HasSuffix(p.lower, ".sql"):
				return "SQL schema file"
			}
			return ""
		}},
		pathWords("backfill", nil, []string{"backfill"}),
		anyLine("backfill", "backfill"),
		anyLine("schema change statement", "create table", "alter table", "drop table", "drop column", "add column", "rename column", "create index", "create unique index", "drop index", "add_column", "remove_column", "rename_column", "add_index", "create_table", "drop_table", "addcolumn(", "createtable("),
	}
}

func reliabilityRules() []rule {
	background := []string{"errgroup", "waitgroup", "goroutine", "cron", "setinterval(", "threading.thread", "executorservice", "celery", "@async", "worker"}
	return []rule{
		anyLine("retry logic", "retry", "retries", "backoff"),
		anyLine("timeout or deadline", "timeout", "deadline", "time.after("),
		anyLine("network client", "http.client", "http.get(", "http.post(", "http.newrequest", "http.defaultclient", "grpc.dial", "grpc.newclient", "fetch(", "axios", "requests.get(", "requests.post(", "urllib", "httpx", "resttemplate", "webclient"),
		anyLine("context cancellation", "context.with", "ctx.done()", "context.background()", "context.todo()"),
		{
			any: append([]string{"go "}, background...),
			check: func(l *lineInfo) string {
				if l.file.lang == langGo && strings.HasPrefix(strings.TrimSpace(l.raw), "go ") || containsAny(l.low(), background...) {
					return "background job or goroutine"
				}
				return ""
			},
		},
		{
			any: swallowNeedles(),
			check: func(l *lineInfo) string {
				return swallowedError(l)
			},
		},
	}
}

func adversarialRules() []rule {
	return []rule{
		{path: func(p *pathInfo) string {
			if strings.Contains(p.lower, ".github/workflows/") || hasDir(p.lower, ".circleci", ".buildkite") ||
				p.base == ".gitlab-ci.yml" || p.base == "jenkinsfile" || p.base == "azure-pipelines.yml" {
				return "CI workflow"
			}
			return ""
		}},
		{path: func(p *pathInfo) string {
			if p.base == "dockerfile" || strings.HasPrefix(p.base, "dockerfile.") || strings.HasSuffix(p.base, ".dockerfile") ||
				strings.HasPrefix(p.base, "docker-compose") || strings.HasPrefix(p.base, "compose.y") {
				return "container build config"
			}
			return ""
		}},
		{path: func(p *pathInfo) string {
			if strings.HasSuffix(p.lower, ".tf") {
				return "deploy configuration"
			}
			return pathWords("deploy configuration", []string{"deploy", "deployment", "deployments", "helm", "k8s", "kubernetes", "terraform", "kustomization", "ansible"}, nil).path(p)
		}},
		pathWords("payments code", []string{"charge", "charges"}, []string{"payment", "billing", "invoice", "checkout", "stripe", "paypal", "refund", "subscription", "wallet"}),
		// Not "session": sessions.py of an HTTP client is connection
		// pooling, and security already reads session paths.
		pathWords("authentication code", authExact(), []string{"authenticat", "authoriz", "password", "credential", "permission"}),
		pathWords("data deletion code", []string{"delete", "deletion", "purge", "retention", "erase", "gdpr"}, nil),
		anyLine("data deletion", "delete from ", "drop table", "truncate table", "removeall(", "rm -rf", "shutil.rmtree", "deletemany(", "delete_all", "destroy_all", "bulk_delete", ".destroy("),
	}
}
