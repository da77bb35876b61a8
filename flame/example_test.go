package flame_test

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/pfold/pfold/flame"
	"github.com/pfold/pfold/stream"
)

func ExampleGraph() {
	agg := stream.NewAggregator(stream.Options{TmpDir: os.TempDir()})
	defer agg.Close()
	opt := flame.DefaultOptions()
	opt.Title = "CPU"
	g, err := flame.New(opt, agg)
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range []string{"main;parse 30", "main;render;draw 60", "main;render 10"} {
		stack, _, after, _, err := flame.ParseLine([]byte(line))
		if err != nil {
			log.Fatal(err)
		}
		g.Add(stack, after)
	}
	if err := g.Render(io.Discard); err != nil { // an SVG file in real use
		log.Fatal(err)
	}
	st := g.Stats()
	fmt.Printf("%s samples in %d frames, %d deep\n", st.Total, st.Frames, st.Depth)
	// Output: 100 samples in 5 frames, 3 deep
}
