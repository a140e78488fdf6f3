package nerv

import (
	"context"

	"github.com/ordinate/ordinate/transforms/placement"
)

func init() {
	placement.Register("nerv", "a NeRV, ClassNeRV or SoftClassNeRV map that places a new row by minimising its own part of the stress against the fixed map, with its classes if given",
		func(o PlaceOptions) placement.Method { return &placeMethod{o: o} })
}

// placeMethod is NeRV's placement.Method: its settings, and Placer built
// from them.
type placeMethod struct{ o PlaceOptions }

func (m *placeMethod) Settings() any       { return m.o }
func (m *placeMethod) Perplexity() float64 { return m.o.Perplexity }
func (m *placeMethod) UsesLabels() bool    { return true }

// Tune sets the perplexity and the L-BFGS iteration budget (0 keeps
// them); NewPlacer refuses what it cannot use.
func (m *placeMethod) Tune(perplexity float64, maxIter int) error {
	if perplexity > 0 {
		m.o.Perplexity = perplexity
	}
	if maxIter > 0 {
		m.o.MaxIter = maxIter
	}
	return nil
}

func (m *placeMethod) Placer(_ context.Context, ref placement.Reference, soft []float64, classes, _ int) (placement.Placer, error) {
	p, err := NewPlacer(ref, soft, classes, m.o)
	if err != nil {
		return nil, err
	}
	return placer{p}, nil
}

// placer adapts Placer to placement.Placer.
type placer struct{ *Placer }

func (p placer) NewWorker() placement.Worker { return &placeWorker{p: p.Placer} }

// placeWorker is one goroutine's NeRV placement: the placer and its
// buffers.
type placeWorker struct {
	p *Placer
	s PlaceScratch
}

func (w *placeWorker) Place(dst []float64, nbr []int32, d2, soft []float64) error {
	_, err := w.p.Place(dst, nbr, d2, soft, &w.s)
	return err
}
