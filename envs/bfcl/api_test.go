package bfcl

import (
	"testing"
	"time"
)

// step is one call and its exact expected result.
type step struct{ call, want string }

func runSteps(t *testing.T, classes []string, config string, long bool, steps []step) *Env {
	t.Helper()
	var cfg *Dict
	if config != "" {
		v, err := DecodeJSON([]byte(config))
		if err != nil {
			t.Fatal(err)
		}
		cfg = v.(*Dict)
	}
	env, err := NewEnv(testData(t), classes, cfg, long)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if got := env.Execute(s.call); got != s.want {
			t.Errorf("%s\n got %s\nwant %s", s.call, got, s.want)
		}
	}
	return env
}

const fsConfig = `{"GorillaFileSystem": {"root": {"ws": {"type": "directory", "contents": {
	"a.txt": {"type": "file", "content": "b line\na line\n"},
	"d": {"type": "directory", "contents": {}}}}}}}`

func TestFileSystemErrors(t *testing.T) {
	runSteps(t, []string{"GorillaFileSystem"}, fsConfig, false, []step{
		{"cd(folder='..')", `{"error": "Cuurent directory is already the root. Cannot go back."}`},
		{"cd(folder='d/x')", `{"error": "cd: d/x: No such directory. You cannot use path to change directory."}`},
		{"mkdir(dir_name='a/b')", `{"error": "mkdir: cannot create directory 'a/b': Invalid character"}`},
		{"mkdir(dir_name='d')", `{"error": "mkdir: cannot create directory 'd': File exists"}`},
		{"touch(file_name='a.txt')", `{"error": "touch: cannot touch 'a.txt': File exists"}`},
		{"cat(file_name='d')", `{"error": "cat: d: Is a directory"}`},
		{"cat(file_name='zz')", `{"error": "cat: zz: No such file or directory"}`},
		{"echo(content='x', file_name='d')", "Error during execution: 'Directory' object has no attribute '_write'"},
		{"echo(content='hi')", `{"terminal_output": "hi"}`},
		{"wc(file_name='a.txt', mode='q')", `{"error": "wc: invalid mode 'q'"}`},
		{"wc(file_name='a.txt')", `{"count": 2, "type": "lines"}`},
		{"sort(file_name='a.txt')", `{"sorted_content": "a line\nb line"}`},
		{"tail(file_name='a.txt', lines=0)", `{"last_lines": "b line\na line"}`},
		{"du(human_readable=True)", `{"disk_usage": "14.00 B"}`},
		{"mv(source='a.txt', destination='x/y')", `{"error": "mv: no path allowed in destination. Only file name and folder name is supported for this operation."}`},
		{"mv(source='nope', destination='d')", `{"error": "mv: cannot move 'nope': No such file or directory"}`},
		{"cp(source='a.txt', destination='d')", `{"result": "'a.txt' copied to 'd/a.txt'"}`},
		{"cp(source='a.txt', destination='d')", "Error during execution: File 'a.txt' already exists in directory 'd'."},
		{"rmdir(dir_name='d')", `{"error": "rmdir: failed to remove 'd': Directory not empty"}`},
		{"rmdir(dir_name='a.txt')", `{"error": "rmdir: cannot remove 'a.txt': Not a directory"}`},
		{"find(path='./', name='a')", `{"matches": ["./a.txt", "./d/a.txt"]}`},
		{"pwd()", `{"current_working_directory": "/ws"}`},
		{"cd(folder=3)", "Error during execution: GorillaFileSystem.cd() argument 'folder' must be str, not int"},
		{"cd(folder='d', x=1)", "Error during execution: GorillaFileSystem.cd() got an unexpected keyword argument 'x'"},
		{"diff('a.txt')", "Error during execution: GorillaFileSystem.diff() missing 1 required positional argument: 'file_name2'"},
		{"cd('d', 'e')", "Error during execution: GorillaFileSystem.cd() takes 2 positional arguments but 3 were given"},
		{"kill(pid=1)", "Error during execution: Function call kill is not allowed."},
		{"cd(folder='d'", "Error during execution: invalid syntax: bfcl: invalid syntax at offset 13: expected ',' or ')' in the arguments of cd"},
	})
}

func TestVehicleErrors(t *testing.T) {
	runSteps(t, []string{"VehicleControlAPI"}, `{"VehicleControlAPI": {"fuelLevel": 10.0,
		"doorStatus": {"driver": "locked", "passenger": "unlocked", "rear_left": "locked", "rear_right": "unlocked"}}}`, false, []step{
		{"startEngine(ignitionMode='START')", `{"error": "All doors must be locked before starting the engine. Here are the unlocked doors: passenger, rear_right"}`},
		{"lockDoors(unlock=False, door=['passenger', 'rear_right'])", `{"lockStatus": "locked", "remainingUnlockedDoors": 0}`},
		{"startEngine(ignitionMode='START')", `{"error": "Brake pedal needs to be pressed when starting the engine."}`},
		{"pressBrakePedal(pedalPosition=0.5)", `{"brakePedalStatus": "pressed", "brakePedalForce": 500.0}`},
		{"startEngine(ignitionMode='START')", `{"error": "Must press the brake fully before starting the engine."}`},
		{"pressBrakePedal(pedalPosition=2)", `{"error": "Pedal position must be between 0 and 1."}`},
		{"pressBrakePedal(pedalPosition=1)", `{"brakePedalStatus": "pressed", "brakePedalForce": 1000.0}`},
		{"startEngine(ignitionMode='GO')", `{"error": "Invalid ignition mode."}`},
		{"fillFuelTank(fuelAmount=-1)", `{"error": "Fuel amount cannot be negative."}`},
		{"fillFuelTank(fuelAmount=45)", `{"error": "Cannot fill gas above the tank capacity."}`},
		{"lockDoors(unlock=True, door=['trunk'])", "Error during execution: 'trunk'"},
		{"adjustClimateControl(temperature=68, unit='fahrenheit', fanSpeed=101)", `{"error": "Fan speed must be between 0 and 100."}`},
		{"adjustClimateControl(temperature=68, unit='fahrenheit')", `{"currentACTemperature": 68, "climateMode": "auto", "humidityLevel": 50.0}`},
		{"displayCarStatus(option='climate')", `{"currentACTemperature": 20.0, "fanSpeed": 50, "climateMode": "auto", "humidityLevel": 50.0}`},
		{"displayCarStatus(option='brakePadle')", `{"error": "Invalid option"}`},
		{"setCruiseControl(speed=60, activate=True, distanceToNextVehicle=100)", `{"error": "Start the engine before activating the cruise control."}`},
		{"get_outside_temperature_from_google()", `{"outsideTemperature": 36.63485703790535}`},
		{"get_outside_temperature_from_weather_com()", `{"error": 404}`},
		{"estimate_distance(cityA='1', cityB='2')", `{"error": "distance not found in database."}`},
		{"get_zipcode_based_on_city(city='Atlantis')", `{"zipcode": "00000"}`},
		{"setHeadlights(mode='auto')", `{"headlightStatus": "off"}`},
	})
}

func TestTravelErrors(t *testing.T) {
	runSteps(t, []string{"TravelAPI"}, `{"TravelAPI": {"credit_card_list": {"c1": {"card_number": "1", "expiration_date": "1/30",
		"cardholder_name": "A B", "card_verification_number": 1, "balance": 300.0}}, "access_token": "tok", "token_expires_in": 1}}`, false, []step{
		{"book_flight(access_token='tok', card_id='c2', travel_date='2024-1-2', travel_from='SFO', travel_to='LAX', travel_class='economy')", `{"booking_status": false, "error": "Card not registered"}`},
		{"book_flight(access_token='tok', card_id='c1', travel_date='2024-02-30', travel_from='SFO', travel_to='LAX', travel_class='economy')", `{"booking_status": false, "error": "Invalid date format. Use YYYY-MM-DD."}`},
		{"book_flight(access_token='tok', card_id='c1', travel_date='2024-1-2', travel_from='XXX', travel_to='LAX', travel_class='economy')", `{"booking_status": false, "error": "Invalid departure airport code: XXX"}`},
		{"book_flight(access_token='tok', card_id='c1', travel_date='2024-1-2', travel_from='LAX', travel_to='CDG', travel_class='economy')", `{"booking_status": false, "error": "No available route for the given parameters"}`},
		{"book_flight(access_token='tok', card_id='c1', travel_date='2024-1-2', travel_from='SFO', travel_to='JFK', travel_class='economy')", `{"booking_status": false, "error": "Insufficient funds"}`},
		{"get_flight_cost(travel_from='LAX', travel_to='CDG', travel_date='2024-1-2', travel_class='economy')", "Error during execution: No available route for the given airports."},
		{"compute_exchange_rate(base_currency='EUR', target_currency='JPY', value=1)", "Error during execution: No available exchange rate for the given currencies."},
		{"compute_exchange_rate(base_currency='USD', target_currency='RMB', value=2)", `{"exchanged_value": 14}`},
		{"get_credit_card_balance(access_token='bad', card_id='c1')", `{"error": "Invalid access token"}`},
		{"get_credit_card_balance(access_token='bad', card_id='c1')", `{"error": "Token expired"}`},
		{"verify_traveler_information(first_name='A', last_name='B', date_of_birth='1990-01-01', passport_number='US1')", `{"verification_status": false, "verification_failure": "Cannot book flight information for another user.Expected None None, got A B"}`},
		{"list_all_airports()", "['RMS', 'SBK', 'MPC', 'SVP', 'SHD', 'CDG', 'LHR', 'SSV', 'OKD', 'WLB', 'PEK', 'HND', 'HKG', 'CIA', 'CRH', 'ATV', 'PHV', 'GFD', 'SFO', 'LAX', 'JFK', 'ORD', 'BOS']"},
	})
	runSteps(t, []string{"TravelAPI"}, "", false, []step{
		{"register_credit_card(access_token='x', card_number='1', expiration_date='1/30', cardholder_name='A', card_verification_number=1)", `{"error": "Token not initialized"}`},
		{"set_budget_limit(access_token='x', budget_limit=10)", "Error during execution: unsupported operand type(s) for -=: 'NoneType' and 'int'"},
		{"authenticate_travel(client_id='c', client_secret='s', refresh_token='r', grant_type='read_write', user_first_name='A', user_last_name='B')", `{"expires_in": 2, "access_token": "251675", "token_type": "Bearer", "scope": "read_write"}`},
	})
}

func TestTradingMessagePostingTicketErrors(t *testing.T) {
	runSteps(t, []string{"TradingBot", "MessageAPI", "TwitterAPI", "TicketAPI"}, "", false, []step{
		{"get_watchlist()", "['Error: User not authenticated. Please log in to view the watchlist.']"},
		{"get_order_history()", "[{'error': 'User not authenticated. Please log in to view order history.'}]"},
		{"place_order(order_type='Buy', symbol='AAPL', price=1, amount=1)", `{"error": "User not authenticated. Please log in to place an order."}`},
		{"trading_login(username='u', password='p')", `{"status": "Logged in successfully"}`},
		{"trading_login(username='u', password='p')", `{"status": "Already logged in"}`},
		{"get_order_details(order_id='12345')", `{"error": "Order with ID 12345 not found.Here is the list of orders_id: [12345, 12446]"}`},
		{"cancel_order(order_id=12345)", `{"error": "Can't cancel order 12345. Order is already completed."}`},
		{"make_transaction(account_id=12345, xact_type='deposit', amount=5)", `{"error": "Market is closed. Transactions are not allowed."}`},
		{"update_market_status(current_time_str='10:30 AM')", `{"status": "Open"}`},
		{"make_transaction(account_id=12345, xact_type='withdrawal', amount=20000)", `{"error": "Insufficient funds for withdrawal."}`},
		{"make_transaction(account_id=12345, xact_type='deposit', amount=5)", `{"status": "Deposit successful", "new_balance": 10005.0}`},
		{"update_stock_price(symbol='ZZZ', new_price=1)", `{"error": "Stock with symbol 'ZZZ' not found."}`},
		{"send_message(receiver_id='USR002', message='hi')", `{"error": "No user is currently logged in."}`},
		{"message_login(user_id='USR999')", `{"login_status": false, "message": "User ID 'USR999' not found."}`},
		{"message_login(user_id='USR001')", `{"login_status": true, "message": "User 'USR001' logged in successfully."}`},
		{"send_message(receiver_id='USR009', message='hi')", `{"error": "Receiver ID 'USR009' not found."}`},
		{"delete_message(receiver_id='USR009')", `{"error": "Receiver ID USR009 not found."}`},
		{"add_contact(user_name='Alice')", `{"error": "User name 'Alice' already exists."}`},
		{"comment(tweet_id=0, comment_content='x')", "Error during execution: exceptions must derive from BaseException"},
		{"post_tweet(content='x')", `{"error": "User not authenticated. Please authenticate before posting."}`},
		{"authenticate_twitter(username='john', password='john123')", `{"authentication_status": true}`},
		{"post_tweet(content='x')", `{"id": 0, "username": "john", "content": "x", "tags": [], "mentions": []}`},
		{"get_tweet(tweet_id='0')", `{"error": "Tweet with ID 0 not found."}`},
		{"follow_user(username_to_follow='alice')", `{"follow_status": false}`},
		{"create_ticket(title='t')", `{"error": "User not authenticated. Please log in to create a ticket."}`},
		{"ticket_login(username='u', password='p')", `{"success": true}`},
		{"create_ticket(title='t', priority=9)", `{"error": "Invalid priority. Priority must be between 1 and 5."}`},
		{"create_ticket(title='t')", `{"id": 1, "title": "t", "description": "", "status": "Open", "priority": 1, "created_by": "u"}`},
		{"close_ticket(ticket_id=1)", `{"status": "Ticket 1 has been closed successfully."}`},
		{"close_ticket(ticket_id=1)", `{"error": "Ticket with ID 1 is already closed."}`},
		{"edit_ticket(ticket_id=1, updates={'owner': 'x'})", `{"error": "Invalid fields for update: owner"}`},
		{"get_ticket(ticket_id=7)", `{"error": "Ticket with ID 7 not found."}`},
		{"get_user_tickets(status='closed')", "[{'id': 1, 'title': 't', 'description': '', 'status': 'Closed', 'priority': 1, 'created_by': 'u'}]"},
	})
}

func TestMathAPI(t *testing.T) {
	runSteps(t, []string{"MathAPI"}, "", false, []step{
		{"logarithm(value=36, base=6, precision=4)", "{'result': mpf('2.0')}"},
		{"logarithm(value=630.0, base=10, precision=5)", "{'result': mpf('2.7993393')}"},
		{"logarithm(value=20, base=10, precision=2)", "{'result': mpf('1.3027')}"},
		{"standard_deviation(numbers=[100, 95, 85, 90, 88, 92])", `{"result": 4.85340659285368}`},
		{"mean(numbers=[])", `{"error": "Cannot calculate mean of an empty list"}`},
		{"mean(numbers=[1, 'a'])", `{"error": "All elements in the list must be numbers"}`},
		{"divide(a=1, b=0)", `{"error": "Cannot divide by zero"}`},
		{"divide(a=7, b=2)", `{"result": 3.5}`},
		{"add(a='1', b=2)", `{"error": "Both inputs must be numbers"}`},
		{"round_number(number=2.675, decimal_places=2)", `{"result": 2.67}`},
		{"round_number(number=2.5)", `{"result": 2.0}`},
		{"square_root(number=2, precision=5)", "{'result': Decimal('1.4142')}"},
		{"square_root(number=16.0, precision=5)", "{'result': Decimal('4')}"},
		{"square_root(number=-1, precision=5)", `{"error": "Cannot calculate square root of a negative number"}`},
		{"si_unit_conversion(value=1, unit_in='km', unit_out='parsec')", `{"error": "Conversion from 'km' to 'parsec' is not supported"}`},
		{"imperial_si_conversion(value=100, unit_in='celsius', unit_out='fahrenheit')", `{"result": 212.0}`},
		{"power(base=2, exponent=10)", `{"result": 1024}`},
		{"sum_values(numbers=[1, 2.5])", `{"result": 3.5}`},
	})
}

func TestWithheldFunction(t *testing.T) {
	env := runSteps(t, []string{"GorillaFileSystem"}, fsConfig, false, nil)
	env.Withhold("sort")
	for _, f := range env.Functions() {
		if f == "sort" {
			t.Fatal("withheld function listed")
		}
	}
	if got := env.Execute("sort(file_name='a.txt')"); got != "Error during execution: function 'sort' is not available at this point" {
		t.Errorf("withheld call: %s", got)
	}
	env.Offer("sort")
	if got := env.Execute("sort(file_name='a.txt')"); got != `{"sorted_content": "a line\nb line"}` {
		t.Errorf("offered call: %s", got)
	}
}

func TestGroundTruthNeverErrors(t *testing.T) {
	eachSource(t, func(t *testing.T, _ source, ds *dataSet) {
		for _, cat := range Categories {
			for _, e := range ds.of(t, cat) {
				env, err := NewEnv(ds.d, e.InvolvedClasses, e.InitialConfig, e.LongContext())
				if err != nil {
					t.Fatal(err)
				}
				for _, turn := range e.GroundTruth {
					for _, c := range turn {
						if r := env.Execute(c); len(r) >= len(ErrorPrefix) && r[:len(ErrorPrefix)] == ErrorPrefix {
							t.Errorf("%s: %s -> %s", e.ID, c, r)
						}
					}
				}
			}
		}
	})
}

// TestMathAPIHugeArguments: arguments that would make the reference
// compute for ages or exhaust memory answer at once, as Python would where
// it answers at all: an int result past Python's 4300-digit string limit
// fails as its JSON encoding does, and rounding to a billion places leaves
// a float as it is.
func TestMathAPIHugeArguments(t *testing.T) {
	d := testData(t)
	cases := []struct{ call, want string }{
		{"power(base=10, exponent=100000000)", ErrorPrefix + "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"},
		{"power(base=99999999999, exponent=99999999999)", ErrorPrefix + "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"},
		{"power(base=2, exponent=62)", `{"result": 4611686018427387904}`},
		{"power(base=-3, exponent=5)", `{"result": -243}`},
		{"power(base=1, exponent=99999999999)", `{"result": 1}`},
		{"power(base=-1, exponent=99999999999)", `{"result": -1}`},
		{"round_number(number=1.5, decimal_places=1000000000)", `{"result": 1.5}`},
		{"round_number(number=15, decimal_places=-1000000000)", `{"result": 0}`},
		{"round_number(number=1234.5678, decimal_places=-2)", `{"result": 1200.0}`},
	}
	for _, c := range cases {
		t.Run(c.call, func(t *testing.T) {
			env, err := NewEnv(d, []string{"MathAPI"}, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan string, 1)
			go func() { done <- env.Execute(c.call) }()
			select {
			case got := <-done:
				if got != c.want {
					t.Errorf("got %q, want %q", got, c.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no answer within 5s")
			}
		})
	}
}
