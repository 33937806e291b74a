import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import {
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  AdminOnly,
  CompanyAuthenticated,
  CurrentCompany,
  PresentedToken,
  Public,
  SubscriptionExempt,
} from './guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { ClientIp } from '../../../common/http/client-ip';
import { AuthService } from '../application/auth.service';
import { LoginDto, RegisterCompanyDto } from './auth.dto';
import { AuthResponse, LoginResponse, toAuthResponse, toLoginResponse } from './auth.response';

@ApiTags('Autenticação')
@SubscriptionExempt()
@Controller('api/auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('register')
  @HttpCode(200)
  @AdminOnly()
  @ApiOperation({ summary: 'Cadastra uma empresa (credencial de administrador)' })
  @ApiHeader({ name: 'ACCESS_TOKEN', required: true, description: 'Bearer <ADMIN_PASSWORD>' })
  @ApiOkResponse({ type: AuthResponse })
  async register(@Body() body: RegisterCompanyDto): Promise<AuthResponse> {
    return toAuthResponse(await this.auth.register(body));
  }

  @Post('login')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Entra com e-mail e senha e recebe um novo token de acesso' })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrors(429, 503)
  async login(@Body() body: LoginDto, @ClientIp() ip: string): Promise<LoginResponse> {
    return toLoginResponse(await this.auth.login(body, ip));
  }

  @Get('me')
  @CompanyAuthenticated()
  @ApiOperation({ summary: 'A empresa do token apresentado' })
  @ApiOkResponse({ type: LoginResponse })
  async me(
    @CurrentCompany() company: CompanySession,
    @PresentedToken() token: string,
  ): Promise<LoginResponse> {
    return toLoginResponse(await this.auth.me(company, token));
  }

  @Post('logout')
  @HttpCode(204)
  @CompanyAuthenticated()
  @ApiOperation({ summary: 'Revoga o token apresentado' })
  @ApiNoContentResponse({ description: 'Token revogado' })
  async logout(@CurrentCompany() company: CompanySession): Promise<void> {
    await this.auth.logout(company);
  }
}
