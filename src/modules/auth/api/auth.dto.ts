import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { IsEmail, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

/** The company's login e-mail, the same rules to register and to log in. */
function CompanyEmail(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example: 'contato@lojadamaria.com.br', maxLength: 100 }),
    IsString({ message: 'é obrigatório' }),
    IsNotEmpty({ message: 'é obrigatório' }),
    MaxLength(100, { message: 'deve ter no máximo 100 caracteres' }),
    IsEmail({}, { message: 'deve ser um e-mail válido' }),
  );
}

function CompanyPassword(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example: 'segredo123', minLength: 6 }),
    IsString({ message: 'é obrigatória' }),
    MinLength(6, { message: 'deve ter no mínimo 6 caracteres' }),
  );
}

export class RegisterCompanyDto {
  @ApiPropertyOptional({
    example: 'Loja da Maria',
    maxLength: 100,
    description: 'Padrão: parte do e-mail antes do @',
  })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(100, { message: 'deve ter no máximo 100 caracteres' })
  name?: string;

  @CompanyEmail()
  email!: string;

  @CompanyPassword()
  password!: string;
}

export class LoginDto {
  @CompanyEmail()
  email!: string;

  @CompanyPassword()
  password!: string;
}
