// Word lists for demo data.

export const FIRST_NAMES = [
  'James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth',
  'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen',
  'Christopher', 'Lisa', 'Daniel', 'Nancy', 'Matthew', 'Betty', 'Anthony', 'Sandra', 'Mark', 'Margaret',
  'Aisha', 'Wei', 'Priya', 'Mateo', 'Sofia', 'Hiroshi', 'Yuki', 'Olga', 'Lars', 'Ingrid', 'Kwame', 'Amara',
  'Diego', 'Lucia', 'Ahmed', 'Fatima', 'Noah', 'Emma', 'Liam', 'Olivia', 'Arjun', 'Mei', 'Sven', 'Chloe',
];

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin',
  'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson',
  'Nakamura', 'Chen', 'Patel', 'Kowalski', 'Novak', 'Schmidt', 'Müller', 'Rossi', 'Dubois', 'Okafor',
  'Mensah', 'Haddad', 'Silva', 'Santos', 'Ivanova', 'Larsen', 'Nguyen', 'Kim', 'Singh', 'Costa',
];

export const STREETS = ['Main St', 'Oak Ave', 'Maple Dr', 'Cedar Ln', 'Park Rd', 'Elm St', 'Lake View', 'Hill Rd', 'River Way', 'Station Rd'];

export const CITIES = ['Springfield', 'Riverside', 'Franklin', 'Greenville', 'Bristol', 'Clinton', 'Fairview', 'Salem', 'Madison', 'Georgetown'];

export const DEPARTMENTS = ['Engineering', 'Sales', 'Marketing', 'Finance', 'Human Resources', 'Operations', 'Customer Support', 'Legal'];

export const JOB_TITLES = [
  'Software Engineer', 'Senior Software Engineer', 'Engineering Manager', 'Sales Representative', 'Account Manager',
  'Marketing Specialist', 'Accountant', 'HR Specialist', 'Operations Analyst', 'Support Engineer', 'Legal Counsel', 'Director',
];

export const PAY_GRADES: ReadonlyArray<readonly [name: string, min: number, max: number]> = [
  ['Grade A', 30000, 45000],
  ['Grade B', 45000, 65000],
  ['Grade C', 65000, 90000],
  ['Grade D', 90000, 130000],
  ['Grade E', 130000, 200000],
];

export const TIMEZONES = ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles', 'Europe/London', 'Europe/Berlin', 'Asia/Kolkata', 'UTC'];

export const GENDERS = ['Female', 'Male', 'Non-binary'];
