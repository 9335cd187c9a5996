package partners

// apply is s with p's changes.
func apply(p Patch, s Spec) Spec {
	if p.Name.Set {
		s.Name = deref(p.Name.Value)
	}
	if p.URL.Set {
		s.URL = deref(p.URL.Value)
	}
	if p.RateLimit.Set {
		s.RateLimit = p.RateLimit.Value
	}
	if p.MaxInFlight.Set {
		s.MaxInFlight = p.MaxInFlight.Value
	}
	if p.ClearPersonalData.Set {
		s.ClearPersonalData = deref(p.ClearPersonalData.Value)
	}
	if p.Subscriptions.Set {
		s.Subscriptions = deref(p.Subscriptions.Value)
	}
	return s
}

func deref[T any](v *T) T {
	if v == nil {
		var zero T
		return zero
	}
	return *v
}
