# anchor-review: the checks CI runs, and the benchmarks behind BENCHMARKS.md.
.PHONY: test bench fuzz

GO ?= go
# BENCHTIME applies to every benchmark; the critical path takes about 0.4 s
# (max-concurrency 16) and 0.8 s (default 8) per run, plus one 5.2 s serial run.
BENCHTIME ?= 10x

test:
	$(GO) vet ./... && $(GO) test -race -shuffle=on ./...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -v -benchtime=$(BENCHTIME) -timeout=20m ./bench/

fuzz:
	bash .ci/fuzz
