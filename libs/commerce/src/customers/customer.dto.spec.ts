import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CreateCustomerDto, isPhoneNumber, UpdateCustomerDto } from './customer.dto.js';

const failing = (type: new () => object, body: Record<string, unknown>) =>
  [...new Set(validateSync(plainToInstance(type, body)).map((error) => error.property))].sort();

describe('customer fields', () => {
  it.each([
    '+15550100',
    '+1 (555) 010-0199',
    '020 7946 0958',
    '555.0100',
    '123',
    '+123456789012345',
    '(1)-'.repeat(10),
  ])('accepts the phone %s', (phone) => expect(isPhoneNumber(phone)).toBe(true));

  it.each([
    '12',
    '+1234567890123456',
    `${'(1)-'.repeat(10)}1`,
    '555+0100',
    '++15550100',
    'call me',
    '555 0100 ext. 12',
    '',
    ' ',
    5550100,
    null,
  ])('refuses the phone %j', (phone) => expect(isPhoneNumber(phone)).toBe(false));

  it('creation needs a name and an e-mail; trims them', () => {
    expect(failing(CreateCustomerDto, {})).toEqual(['email', 'name']);
    expect(failing(CreateCustomerDto, { name: ' ', email: 'a@example.com' })).toEqual(['name']);
    const dto = plainToInstance(CreateCustomerDto, { name: ' Ada ', email: ' ada@example.com ', phone: ' +15550100 ' });
    expect(validateSync(dto)).toEqual([]);
    expect(dto).toEqual({ name: 'Ada', email: 'ada@example.com', phone: '+15550100' });
  });

  it('an update may omit anything and clear the phone, but not null the name or the e-mail', () => {
    expect(failing(UpdateCustomerDto, {})).toEqual([]);
    expect(failing(UpdateCustomerDto, { phone: null })).toEqual([]);
    expect(failing(UpdateCustomerDto, { name: null, email: null })).toEqual(['email', 'name']);
  });
});
