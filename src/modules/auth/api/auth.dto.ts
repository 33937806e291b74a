import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

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

  @ApiProperty({ example: 'contato@lojadamaria.com.br', maxLength: 100 })
  @IsString({ message: 'é obrigatório' })
  @IsNotEmpty({ message: 'é obrigatório' })
  @MaxLength(100, { message: 'deve ter no máximo 100 caracteres' })
  @IsEmail({}, { message: 'deve ser um e-mail válido' })
  email!: string;

  @ApiProperty({ example: 'segredo123', minLength: 6 })
  @IsString({ message: 'é obrigatória' })
  @MinLength(6, { message: 'deve ter no mínimo 6 caracteres' })
  password!: string;
}

export class LoginDto {
  @ApiProperty({ example: 'contato@lojadamaria.com.br' })
  @IsString({ message: 'é obrigatório' })
  @IsNotEmpty({ message: 'é obrigatório' })
  @MaxLength(100, { message: 'deve ter no máximo 100 caracteres' })
  @IsEmail({}, { message: 'deve ser um e-mail válido' })
  email!: string;

  @ApiProperty({ example: 'segredo123', minLength: 6 })
  @IsString({ message: 'é obrigatória' })
  @MinLength(6, { message: 'deve ter no mínimo 6 caracteres' })
  password!: string;
}
