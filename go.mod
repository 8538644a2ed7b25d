module github.com/anchor-review/anchor-review

go 1.26.8

require (
	github.com/google/go-github/v62 v62.0.0 // indirect
	github.com/sashabaranov/go-openai v1.41.2 // indirect
	github.com/sethvargo/go-githubactions v1.3.2 // indirect
	github.com/xeipuuv/gojsonpointer v0.0.0-20180127040702-4e3ac2762d5f // indirect
	github.com/xeipuuv/gojsonreference v0.0.0-20180127040603-bd5ef7bd5415 // indirect
	github.com/xeipuuv/gojsonschema v1.2.0 // indirect
	golang.org/x/sync v0.10.0 // indirect
)
