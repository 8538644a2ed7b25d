module github.com/anchor-review/anchor-review

go 1.26

require (
	github.com/google/go-github/v62 v62.0.0
	github.com/sashabaranov/go-openai v1.41.2
	github.com/sethvargo/go-githubactions v1.3.2
	github.com/xeipuuv/gojsonschema v1.2.0
	go.yaml.in/yaml/v3 v3.0.4
	golang.org/x/sync v0.10.0
)

require (
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/xeipuuv/gojsonpointer v0.0.0-20180127040702-4e3ac2762d5f // indirect
	github.com/xeipuuv/gojsonreference v0.0.0-20180127040603-bd5ef7bd5415 // indirect
)
