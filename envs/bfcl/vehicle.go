package bfcl

import (
	"fmt"
	"math"
	"strings"
)

// vehicle is VehicleControlAPI.
type vehicle struct {
	at                                   *Dict
	parkingBrakeForce, slopeAngle, pedal any
	rng                                  *pyRandom
	d                                    *Data
	long                                 bool
}

func newVehicle(d *Data, cfg *Dict, long bool) (api, error) {
	v := &vehicle{at: loadAttrs(d, "VehicleControlAPI", cfg), d: d, long: long,
		rng: newPyRandom(141053), parkingBrakeForce: 0.0, slopeAngle: 0.0, pedal: 0.0}
	def := d.defaults("VehicleControlAPI")
	es, _ := def.Get("engine_state")
	if x, ok := cfg.Get("engineState"); ok {
		es = x
	}
	v.at.Set("engine_state", es)
	if x, ok := cfg.Get("parkingBrakeForce"); ok {
		v.parkingBrakeForce = x
	}
	if x, ok := cfg.Get("slopeAngle"); ok {
		v.slopeAngle = x
	}
	locked := int64(0)
	for _, k := range v.doors().Keys() {
		if s, _ := v.doors().Get(k); s == "locked" {
			locked++
		}
	}
	v.at.Set("remainingUnlockedDoors", 4-locked)
	v.at.Set("long_context", long)
	return v, nil
}

func (v *vehicle) state() *Dict { return v.at }

func (v *vehicle) get(k string) any { x, _ := v.at.Get(k); return x }

func (v *vehicle) doors() *Dict { return asDict(v.get("doorStatus")) }

func (v *vehicle) methods() map[string]method {
	none := []param(nil)
	return map[string]method{
		"startEngine":                              {[]param{req("ignitionMode", kStr)}, v.startEngine},
		"fillFuelTank":                             {[]param{req("fuelAmount", kNum)}, v.fillFuelTank},
		"lockDoors":                                {[]param{req("unlock", kBool), req("door", kList)}, v.lockDoors},
		"adjustClimateControl":                     {[]param{req("temperature", kNum), opt("unit", kStr, "celsius"), opt("fanSpeed", kAny, int64(50)), opt("mode", kStr, "auto")}, v.adjustClimate},
		"get_outside_temperature_from_google":      {none, v.tempGoogle},
		"get_outside_temperature_from_weather_com": {none, func(args) (any, error) { return NewDict("error", int64(404)), nil }},
		"setHeadlights":                            {[]param{req("mode", kStr)}, v.setHeadlights},
		"displayCarStatus":                         {[]param{req("option", kStr)}, v.displayCarStatus},
		"activateParkingBrake":                     {[]param{req("mode", kStr)}, v.parkingBrake},
		"pressBrakePedal":                          {[]param{req("pedalPosition", kNum)}, v.pressBrake},
		"releaseBrakePedal":                        {none, v.releaseBrake},
		"setCruiseControl":                         {[]param{req("speed", kNum), req("activate", kBool), req("distanceToNextVehicle", kNum)}, v.cruise},
		"get_current_speed":                        {none, func(args) (any, error) { return NewDict("currentSpeed", v.rng.uniform(0, 120)), nil }},
		"display_log":                              {[]param{req("messages", kList)}, func(a args) (any, error) { return NewDict("log", a["messages"]), nil }},
		"estimate_drive_feasibility_by_mileage":    {[]param{req("distance", kNum)}, v.feasibility},
		"liter_to_gallon":                          {[]param{req("liter", kNum)}, func(a args) (any, error) { return NewDict("gallon", toFloat(a["liter"])*0.264172), nil }},
		"gallon_to_liter":                          {[]param{req("gallon", kNum)}, func(a args) (any, error) { return NewDict("liter", toFloat(a["gallon"])*3.78541), nil }},
		"estimate_distance":                        {[]param{req("cityA", kStr), req("cityB", kStr)}, v.estimateDistance},
		"get_zipcode_based_on_city":                {[]param{req("city", kStr)}, v.zipcode},
		"set_navigation":                           {[]param{req("destination", kStr)}, v.navigate},
		"check_tire_pressure":                      {none, v.tires},
		"find_nearest_tire_shop":                   {none, func(args) (any, error) { return NewDict("shopLocation", "456 Oakwood Avenue, Rivermist, 83214"), nil }},
	}
}

func (v *vehicle) startEngine(a args) (any, error) {
	mode := a.str("ignitionMode")
	if mode == "STOP" {
		v.at.Set("engine_state", "stopped")
	}
	if toInt(v.get("remainingUnlockedDoors")) > 0 {
		var un []string
		for _, k := range v.doors().Keys() {
			if s, _ := v.doors().Get(k); s == "unlocked" {
				un = append(un, k.(string))
			}
		}
		return errDict("All doors must be locked before starting the engine. Here are the unlocked doors: " + strings.Join(un, ", ")), nil
	}
	switch {
	case v.get("brakePedalStatus") != "pressed":
		return errDict("Brake pedal needs to be pressed when starting the engine."), nil
	case toFloat(v.pedal) != 1000.0:
		return errDict("Must press the brake fully before starting the engine."), nil
	case numLess(v.get("fuelLevel"), 0.0):
		return errDict("Fuel tank is empty."), nil
	case mode != "START":
		return errDict("Invalid ignition mode."), nil
	}
	v.at.Set("engine_state", "running")
	return NewDict("engineState", "running", "fuelLevel", v.get("fuelLevel"), "batteryVoltage", v.get("batteryVoltage")), nil
}

func (v *vehicle) fillFuelTank(a args) (any, error) {
	amt := a["fuelAmount"]
	level := numAdd(v.get("fuelLevel"), amt)
	switch {
	case numLess(amt, int64(0)):
		return errDict("Fuel amount cannot be negative."), nil
	case numLess(50.0, level):
		return errDict("Cannot fill gas above the tank capacity."), nil
	case numLess(level, 0.0):
		return errDict("Fuel tank is empty. Min fuel level is 0 gallons."), nil
	}
	v.at.Set("fuelLevel", level)
	return NewDict("fuelLevel", level), nil
}

func (v *vehicle) lockDoors(a args) (any, error) {
	unlock := a.boolean("unlock")
	want, status, delta := "locked", "locked", int64(-1)
	if unlock {
		want, status, delta = "unlocked", "unlocked", 1
	}
	for _, d := range a.list("door") {
		cur, ok := v.doors().Get(d)
		if !ok {
			return nil, raisef("%s", PyRepr(d))
		}
		if cur == want {
			continue
		}
		v.doors().Set(d, want)
		v.at.Set("remainingUnlockedDoors", toInt(v.get("remainingUnlockedDoors"))+delta)
	}
	return NewDict("lockStatus", status, "remainingUnlockedDoors", v.get("remainingUnlockedDoors")), nil
}

func (v *vehicle) adjustClimate(a args) (any, error) {
	fan := a["fanSpeed"]
	if ok, err := inRange(int64(0), fan, int64(100)); err != nil || !ok {
		if err != nil {
			return nil, err
		}
		return errDict("Fan speed must be between 0 and 100."), nil
	}
	t := a["temperature"]
	if a.str("unit") == "fahrenheit" {
		v.at.Set("acTemperature", numDiv(numMul(numSub(t, int64(32)), int64(5)), int64(9)))
	} else {
		v.at.Set("acTemperature", t)
	}
	v.at.Set("fanSpeed", fan)
	v.at.Set("acMode", a["mode"])
	return NewDict("currentACTemperature", t, "climateMode", a["mode"], "humidityLevel", v.get("humidityLevel")), nil
}

func (v *vehicle) tempGoogle(args) (any, error) {
	t := v.rng.uniform(-10, 40)
	if !v.long {
		return NewDict("outsideTemperature", t), nil
	}
	out := DeepCopy(v.d.extension("LONG_WEATHER_EXTENSION")).(*Dict)
	out.Set("outsideTemperature", t)
	return out, nil
}

func (v *vehicle) setHeadlights(a args) (any, error) {
	switch a.str("mode") {
	case "on":
		v.at.Set("headLightStatus", "on")
		return NewDict("headlightStatus", "on"), nil
	case "off", "auto":
		v.at.Set("headLightStatus", "off")
		return NewDict("headlightStatus", "off"), nil
	}
	return errDict("Invalid headlight mode."), nil
}

func (v *vehicle) displayCarStatus(a args) (any, error) {
	s := NewDict()
	if v.long {
		s.Set("metadata", v.d.extension("CAR_STATUS_METADATA_EXTENSION"))
	}
	set := func(kv ...any) {
		for i := 0; i < len(kv); i += 2 {
			s.Set(kv[i], kv[i+1])
		}
	}
	switch a.str("option") {
	case "fuel":
		set("fuelLevel", v.get("fuelLevel"))
	case "battery":
		set("batteryVoltage", v.get("batteryVoltage"))
	case "doors":
		set("doorStatus", DeepCopy(v.get("doorStatus")))
	case "climate":
		set("currentACTemperature", v.get("acTemperature"), "fanSpeed", v.get("fanSpeed"),
			"climateMode", v.get("acMode"), "humidityLevel", v.get("humidityLevel"))
	case "headlights":
		set("headlightStatus", v.get("headLightStatus"))
	case "parkingBrake":
		set("parkingBrakeStatus", v.get("parkingBrakeStatus"), "_parkingBrakeForce", v.parkingBrakeForce, "_slopeAngle", v.slopeAngle)
	case "brakePedal":
		set("brakePedalStatus", v.get("brakePedalStatus"), "brakePedalForce", v.pedal)
	case "engine":
		set("engineState", v.get("engine_state"))
	default:
		set("error", "Invalid option")
	}
	return s, nil
}

func (v *vehicle) parkingBrake(a args) (any, error) {
	status := map[string]string{"engage": "engaged", "release": "released"}[a.str("mode")]
	if status == "" {
		return errDict("Invalid mode"), nil
	}
	force := 500.0
	if status == "released" {
		force = 0.0
	}
	v.at.Set("parkingBrakeStatus", status)
	v.parkingBrakeForce, v.slopeAngle = force, 10.0
	out := NewDict()
	if v.long {
		out.Set("parkingBrakeInstruction", v.d.extension("PARKING_BRAKE_INSTRUCTION"))
	}
	out.Set("parkingBrakeStatus", status)
	out.Set("_parkingBrakeForce", force)
	out.Set("_slopeAngle", 10.0)
	return out, nil
}

func (v *vehicle) pressBrake(a args) (any, error) {
	p := a["pedalPosition"]
	if numLess(p, int64(0)) || numLess(int64(1), p) {
		return errDict("Pedal position must be between 0 and 1."), nil
	}
	if toFloat(p) == 0 {
		return v.releaseBrake(a)
	}
	force := numMul(p, int64(1000))
	v.at.Set("brakePedalStatus", "pressed")
	v.pedal = force
	return NewDict("brakePedalStatus", "pressed", "brakePedalForce", toFloat(force)), nil
}

func (v *vehicle) releaseBrake(args) (any, error) {
	v.at.Set("brakePedalStatus", "released")
	v.pedal = 0.0
	return NewDict("brakePedalStatus", "released", "brakePedalForce", 0.0), nil
}

func (v *vehicle) cruise(a args) (any, error) {
	speed, dist := toFloat(a["speed"]), toFloat(a["distanceToNextVehicle"])
	if v.get("engine_state") == "stopped" {
		return errDict("Start the engine before activating the cruise control."), nil
	}
	v.at.Set("distanceToNextVehicle", dist)
	status := "inactive"
	if a.boolean("activate") {
		if speed < 0 || speed > 120 || pyMod(speed, 5) != 0 {
			return errDict("Invalid speed"), nil
		}
		status = "active"
	}
	v.at.Set("cruiseStatus", status)
	return NewDict("cruiseStatus", status, "currentSpeed", speed, "distanceToNextVehicle", dist), nil
}

func (v *vehicle) feasibility(a args) (any, error) {
	can := !numLess(numMul(v.get("fuelLevel"), 20.0), a["distance"])
	return NewDict("canDrive", can), nil
}

func (v *vehicle) estimateDistance(a args) (any, error) {
	x, y := a.str("cityA"), a.str("cityB")
	out := errDict("distance not found in database.")
	for _, row := range v.d.table("vehicle_zip_distances").([]any) {
		r := row.([]any)
		if (r[0] == x && r[1] == y) || (r[0] == y && r[1] == x) {
			out = NewDict("distance", toFloat(r[2]))
			break
		}
	}
	if v.long {
		out.Set("intermediaryCities", v.d.extension("INTERMEDIARY_CITIES"))
	}
	return out, nil
}

func (v *vehicle) zipcode(a args) (any, error) {
	z, ok := v.d.table("vehicle_city_to_zipcode").(*Dict).Get(a.str("city"))
	if !ok {
		z = "00000"
	}
	return NewDict("zipcode", z), nil
}

func (v *vehicle) navigate(a args) (any, error) {
	v.at.Set("destination", a["destination"])
	return NewDict("status", fmt.Sprintf("Navigating to %s", a.str("destination"))), nil
}

func (v *vehicle) tires(args) (any, error) {
	names := []string{"frontLeftTirePressure", "frontRightTirePressure", "rearLeftTirePressure", "rearRightTirePressure"}
	out := NewDict()
	var sum any = int64(0)
	for _, n := range names {
		out.Set(n, v.get(n))
		sum = numAdd(sum, v.get(n))
	}
	mean := numDiv(sum, int64(4))
	out.Set("healthy_tire_pressure", mean >= 30 && mean <= 35)
	var info any = NewDict()
	if v.long {
		info = v.d.extension("CAR_STATUS_METADATA_EXTENSION")
	}
	out.Set("car_info", info)
	return out, nil
}

// pyMod is Python's float %: the result has the divisor's sign.
func pyMod(x, y float64) float64 {
	m := math.Mod(x, y)
	if m != 0 && (m < 0) != (y < 0) {
		m += y
	}
	return m
}
