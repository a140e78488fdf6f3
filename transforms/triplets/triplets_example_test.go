package triplets_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ordinate/ordinate/transforms/triplets"
)

func Example() {
	// Two aspects of five objects; "" is a missing value.
	codes := triplets.Encode([][]string{
		{"cat", "cat", "dog", "dog", "dog"},
		{"small", "large", "small", "", "small"},
	})
	fmt.Println("ordered:", triplets.Count(codes, triplets.Ordered))
	fmt.Println("unordered:", triplets.Count(codes, triplets.Unordered))

	err := triplets.Generate(context.Background(), codes, triplets.Unordered, 4, func(t *triplets.Table) error {
		// t is reused: copy anything that must outlive this call.
		line := make([]string, t.Len())
		for r := range line {
			line[r] = fmt.Sprintf("<%d,%d,%d>_%d", t.I[r], t.J[r], t.K[r], t.Aspect[r])
		}
		fmt.Println(strings.Join(line, " "))
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// ordered: [18 6]
	// unordered: [9 3]
	// <0,1,2>_0 <0,1,3>_0 <0,1,4>_0 <2,3,0>_0
	// <2,3,1>_0 <2,4,0>_0 <2,4,1>_0 <3,4,0>_0
	// <3,4,1>_0 <0,2,1>_1 <0,4,1>_1 <2,4,1>_1
}

func ExampleSample() {
	codes := triplets.Encode([][]string{{"a", "a", "a", "b", "b", "c"}})
	fmt.Println("all:", triplets.Count(codes, triplets.Ordered))
	s := triplets.Sample(codes, triplets.Ordered, 3, rand.New(rand.NewPCG(1, 2)))
	fmt.Println("sampled:", s.Len())
	_, err := s.Validate(6, 1)
	fmt.Println("valid:", err == nil)
	// Output:
	// all: [26]
	// sampled: 3
	// valid: true
}

func ExampleSplit() {
	codes := triplets.Encode([][]string{{"a", "a", "a", "b", "b", "b"}})
	split := triplets.SplitObjects(rand.New(rand.NewPCG(1, 2)), 1, 6, 0.5)

	var all triplets.Table
	err := triplets.Generate(context.Background(), codes, triplets.Unordered, 100, func(t *triplets.Table) error {
		for r := range t.Len() {
			all.Append(t.I[r], t.J[r], t.K[r], t.Aspect[r])
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println("observed:", split.Observed[0])
	train, hidden := split.Partition(&all)
	fmt.Println("all, train, hidden:", all.Len(), train.Len(), hidden.Len())
	// The training triplets can be generated directly from the observed objects.
	fmt.Println("train by codes:", triplets.Count(split.Codes(codes), triplets.Unordered))
	// Output:
	// observed: [true false true false true false]
	// all, train, hidden: 18 1 17
	// train by codes: [1]
}
