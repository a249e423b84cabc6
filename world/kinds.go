package world

import "github.com/ackattack/ackattack/assets"

// Kind is a kind of unit, one row of the assets' unit table. A unit stores
// its kind's ID, the row's index in that table.
type Kind struct {
	ID              uint8
	Name            string
	Letter          byte  // the letter that draws it
	HP              int32 // hit points at full health
	Speed           int32 // hundredths of a cell per frame, 1..100
	Range           int32 // attack reach in cells (Chebyshev distance)
	Damage          int32 // damage per attack, before the roll
	Cooldown        int32 // frames between two attacks
	ProjectileSpeed int32 // 0: the blow lands at once; else hundredths of a cell per frame
	Sight           int32 // how far an idle player unit notices enemies
}

func loadKinds() ([]Kind, error) {
	rows, err := assets.LoadUnitKinds()
	if err != nil {
		return nil, err
	}
	kinds := make([]Kind, len(rows))
	for i, r := range rows {
		kinds[i] = Kind{
			ID:              uint8(i),
			Name:            r.Name,
			Letter:          r.Letter,
			HP:              int32(r.HP),
			Speed:           int32(r.Speed),
			Range:           int32(r.Range),
			Damage:          int32(r.Damage),
			Cooldown:        int32(r.Cooldown),
			ProjectileSpeed: int32(r.ProjectileSpeed),
			Sight:           int32(r.Sight),
		}
	}
	return kinds, nil
}

// Kinds returns every unit kind, in table order (a kind's ID is its index).
func Kinds() []Kind {
	return append([]Kind(nil), loadCatalog().kinds...)
}

// KindByName looks a kind up by name.
func KindByName(name string) (Kind, bool) {
	for _, k := range loadCatalog().kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// KindOf returns the kind with the given ID.
func KindOf(id uint8) (Kind, bool) {
	kinds := loadCatalog().kinds
	if int(id) >= len(kinds) {
		return Kind{}, false
	}
	return kinds[id], true
}

// startingSquad is the kinds AddPlayerUnits gives a player, in the order
// their ids are assigned.
var startingSquad = [...]string{"soldier", "soldier", "archer", "archer", "knight"}

// StartingSquad returns the kinds of the units AddPlayerUnits creates, in the
// order their ids are assigned.
func StartingSquad() []string { return append([]string(nil), startingSquad[:]...) }
