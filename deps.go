package main

import (
	_ "github.com/google/go-github/v62/github"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/sethvargo/go-githubactions"
	_ "github.com/xeipuuv/gojsonschema"
	_ "golang.org/x/sync/errgroup"
)

func main() {}
