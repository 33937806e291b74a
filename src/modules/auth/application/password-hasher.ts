import { Injectable } from '@nestjs/common';
import bcrypt from 'bcryptjs';

const COST = 10;
/** A valid hash of a random password: compared against when the e-mail is unknown, so timing tells nothing. */
const DECOY_HASH = '$2b$10$gEhaknVnJfizsRGXb53DDObNrEbha3opL0xokgRgYw/fSzZ9Ie0Ly';

@Injectable()
export class PasswordHasher {
  hash(password: string): Promise<string> {
    return bcrypt.hash(password, COST);
  }

  verify(password: string, hash: string | null): Promise<boolean> {
    return bcrypt.compare(password, hash ?? DECOY_HASH).then((ok) => ok && hash !== null);
  }
}
